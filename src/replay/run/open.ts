/**
 * The one place the replay command opens its logs: `openArrivals(files, opts)`, the log readers' entry
 * (src/replay/parse/). Until those are merged this reads one trivial format, JSON lines
 * `{"t":ms,"key":"k","gateway":0,"status":200}` (gateway defaults to the file's index mod K), so the
 * command runs end to end; at the merge, this module's body becomes a call of theirs.
 */
import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import type { Arrival, ArrivalSource, MalformedLine, ReadStats } from '../arrival.js';

export interface OpenOptions {
  /** --format (only 'jsonl' until the readers are merged) */
  format?: string;
  /** --key: which field keys the limit (the readers' option; the JSON lines carry `key`) */
  key?: string;
  /** --gateways: K */
  gateways: number;
  /** --route (the readers' option) */
  route?: string;
  seed: number;
}

export const FORMATS = ['jsonl'] as const;
const KEEP_MALFORMED = 5;

/** Opens the files as one stream in ascending t (each file ascending; merged by time). */
export function openArrivals(files: readonly string[], opts: OpenOptions): ArrivalSource {
  if (opts.format !== undefined && !(FORMATS as readonly string[]).includes(opts.format))
    throw new RangeError(
      `--format: one of ${FORMATS.join(', ')} until the log readers are merged; got "${opts.format}"`,
    );
  // the readers' options: the stand-in cannot honour them, so it refuses them rather than ignore them
  for (const [flag, v] of [
    ['--key', opts.key],
    ['--route', opts.route],
  ] as const)
    if (v !== undefined)
      throw new RangeError(
        `${flag}: needs the log readers (src/replay/parse/), not merged yet; the JSON lines carry key and gateway`,
      );
  const stats: ReadStats = {
    files: [...files],
    lines: 0,
    arrivals: 0,
    malformed: 0,
    firstMalformed: [],
    reordered: 0,
    late: 0,
  };
  const bad = (m: MalformedLine) => {
    stats.malformed++;
    if (stats.firstMalformed.length < KEEP_MALFORMED) stats.firstMalformed.push(m);
  };
  const readers = files.map((file, i) => readJsonLines(file, i % opts.gateways, stats, bad));
  return { arrivals: mergeByTime(readers), stats: () => stats };
}

async function* readJsonLines(
  file: string,
  gateway: number,
  stats: ReadStats,
  bad: (m: MalformedLine) => void,
): AsyncGenerator<Arrival> {
  const lines = createInterface({ input: createReadStream(file), crlfDelay: Number.POSITIVE_INFINITY });
  let n = 0;
  let last = Number.NEGATIVE_INFINITY;
  for await (const text of lines) {
    n++;
    if (text.trim() === '') continue;
    stats.lines++;
    let v: { t?: unknown; key?: unknown; gateway?: unknown; status?: unknown };
    try {
      v = JSON.parse(text);
    } catch {
      bad({ file, line: n, text, reason: 'not JSON' });
      continue;
    }
    const t = typeof v.t === 'string' ? Date.parse(v.t) : v.t;
    if (typeof t !== 'number' || !Number.isFinite(t)) {
      bad({ file, line: n, text, reason: 't: expected ms since the epoch or an ISO time' });
      continue;
    }
    if (typeof v.key !== 'string' || v.key === '') {
      bad({ file, line: n, text, reason: 'key: expected a non-empty string' });
      continue;
    }
    // a line out of time order is placed at the latest time seen (counted late, never dropped)
    let at = t;
    if (t < last) {
      stats.late++;
      at = last;
    }
    last = at;
    const a: Arrival = { t: at, key: v.key, gateway: typeof v.gateway === 'number' ? v.gateway : gateway };
    if (typeof v.status === 'number') a.status = v.status;
    stats.arrivals++;
    yield a;
  }
}

/** Merges per-file streams (each ascending) into one, ties in file order. */
function mergeByTime(readers: AsyncGenerator<Arrival>[]): AsyncIterable<Arrival> {
  return readers.length === 1 ? readers[0] : merge(readers);
}

async function* merge(readers: AsyncGenerator<Arrival>[]): AsyncGenerator<Arrival> {
  const heads = await Promise.all(readers.map((r) => r.next()));
  for (;;) {
    let best = -1;
    for (let i = 0; i < heads.length; i++) {
      const h = heads[i];
      if (!h.done && (best < 0 || h.value.t < (heads[best].value as Arrival).t)) best = i;
    }
    if (best < 0) return;
    yield heads[best].value as Arrival;
    heads[best] = await readers[best].next();
  }
}
