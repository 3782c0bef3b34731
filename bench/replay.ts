/**
 * `fleetlimit replay`'s speed (issue 33: 200,000 lines/s end to end for one design on one core,
 * beside the parse alone): writes one generated combined log (N lines, 10,000 client addresses, about
 * 2,000 lines per second of stamps, every 50th line's stamp 1-3 s behind as NGINX writes a slow
 * request's start, 5 % 429s), then in each of RUNS rounds, per design in turn, a fresh process
 * (replay-worker.ts) warms up on a log a fifth as long (untimed: steady state), then times once the
 * readers alone and the whole replay (readers + that design and the central log, one gateway,
 * 100 per minute, Δ = 1 s), the log read with `fleetlimit replay`'s defaults (--spread uniform).
 * Figures are lines per CPU-second of that process, min/median/max.
 * The designs whose reads can follow requests (Design.readsFollowRequests) run a second time with
 * `reads: 'on-request'` (`fleetlimit replay --reads on-request`), rows beside their default ones.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DESIGN_IDS, type DesignId } from '../src/config.js';
import { DESIGNS } from '../src/designs/index.js';
import type { Arrival } from '../src/replay/arrival.js';
import { writeLog } from '../src/replay/parse/write-log.js';
import { Random } from '../src/sim/random.js';
import type { ReplaySample } from './replay-worker.js';
import { runTsChild } from './util.js';

export interface Spread {
  min: number;
  median: number;
  max: number;
}

export interface ReplayBench {
  lines: number;
  runs: number;
  format: 'combined';
  /** The readers alone: every design's process's runs together. */
  parseCpu: Spread;
  /** Readers + design + central log, per design (`DESIGN --reads on-request` for the option's rows). */
  endToEndCpu: Record<string, Spread>;
  endToEndWall: Record<string, Spread>;
  samples: ReplaySample[];
}

/** The target, end to end, lines per second on one core. */
export const REPLAY_TARGET = 200_000;

function* generated(n: number): Generator<Arrival> {
  const random = new Random(7);
  const t0 = Date.UTC(2026, 0, 5, 12, 0, 0);
  for (let i = 0; i < n; i++) {
    const behind = i % 50 === 0 ? 1000 + Math.floor(random.uniform() * 2000) : 0;
    const t = t0 + Math.floor(i / 2) - behind; // 2,000 per second
    const ip = Math.floor(random.uniform() * 10_000);
    const key = `10.${(ip >> 8) & 255}.${ip & 255}.${(ip * 7) & 255}`;
    yield { t, key, gateway: 0, status: random.uniform() < 0.05 ? 429 : 200 };
  }
}

/** Writes the bench's log (see the top of this file) of `lines` lines to `file`. */
export async function writeBenchLog(file: string, lines: number): Promise<void> {
  await writeLog(file, generated(lines), { format: 'combined', tzOffsetMinutes: 60 });
}

/** A row's name: the design, and the reads option when it is not the default. */
const rowName = (design: string, reads: string) =>
  reads === 'every-sync' ? design : `${design} --reads ${reads}`;

function spread(xs: readonly number[]): Spread {
  const s = [...xs].sort((a, b) => a - b);
  return { min: s[0], median: s[Math.floor((s.length - 1) / 2)], max: s[s.length - 1] };
}

export async function benchReplay(opts: {
  quick: boolean;
  log: (s: string) => void;
  designs?: readonly string[];
  lines?: number;
  runs?: number;
}): Promise<ReplayBench> {
  const lines = opts.lines ?? (opts.quick ? 300_000 : 1_000_000);
  const runs = opts.runs ?? 3;
  const designs = opts.designs ?? DESIGN_IDS;
  const dir = mkdtempSync(join(tmpdir(), 'fleetlimit-bench-replay-'));
  const file = join(dir, 'access.log');
  const warm = join(dir, 'warm.log');
  try {
    opts.log(`replay: writing ${lines.toLocaleString('en-US')} combined lines`);
    await writeBenchLog(file, lines);
    // each process first replays a fifth of it, untimed, so its timed run is in steady state
    await writeBenchLog(warm, Math.ceil(lines / 5));
    // each design by default, then the on-request rows of those the option changes, in one run
    const jobs = [
      ...designs.map((d) => [d, 'every-sync'] as const),
      ...designs
        .filter((d) => DESIGNS[d as DesignId]?.readsFollowRequests === true)
        .map((d) => [d, 'on-request'] as const),
    ];
    // Rounds, each running every job once in a fresh process: the designs interleave, so a load that
    // drifts over the minutes of the bench moves every row alike (run one after another, a falling
    // load once read as a 1.7× gap between two designs that differ by 9 % side by side).
    const byRow = new Map<string, ReplaySample>();
    for (let r = 0; r < runs; r++) {
      for (const [design, reads] of jobs) {
        const row = rowName(design, reads);
        opts.log(`replay ${row}, run ${r + 1} of ${runs}`);
        const one = await runTsChild<ReplaySample>(
          'bench/replay-worker.ts',
          [file, 'combined', design, '1', reads, warm],
          1_200_000,
        );
        const s = byRow.get(row);
        if (s === undefined) byRow.set(row, one);
        else
          for (const f of ['parseCpu', 'parseWall', 'endToEndCpu', 'endToEndWall'] as const)
            s[f].push(...one[f]);
      }
    }
    const samples = [...byRow.values()];
    const endToEndCpu: Record<string, Spread> = {};
    const endToEndWall: Record<string, Spread> = {};
    for (const [row, s] of byRow) {
      endToEndCpu[row] = spread(s.endToEndCpu);
      endToEndWall[row] = spread(s.endToEndWall);
    }
    return {
      lines,
      runs,
      format: 'combined',
      parseCpu: spread(samples.flatMap((s) => s.parseCpu)),
      endToEndCpu,
      endToEndWall,
      samples,
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const k = (x: number) => Math.round(x).toLocaleString('en-US');
const mmm = (s: Spread) => `${k(s.min)} / ${k(s.median)} / ${k(s.max)}`;

export function replayTable(b: ReplayBench): string {
  const rows = Object.entries(b.endToEndCpu).map(
    ([d, s]) => `| ${d} | ${mmm(s)} | ${s.median >= REPLAY_TARGET ? 'yes' : '**no**'} |`,
  );
  return [
    `Replay speed: a generated combined log of ${k(b.lines)} lines (10,000 client addresses, 2,000 lines per second of stamps), one gateway, 100 per minute, Δ = 1 s, read with the command's defaults (\`--spread uniform\`: a one-second stamp's lines placed at seeded draws inside it); lines per CPU-second of one process, min / median / max of ${b.runs} runs per design (each run a fresh process, warmed by an untimed replay of a fifth as many lines first, the designs taken in turn in each of ${b.runs} rounds, the readers alone timed in every one of them); a design "--reads on-request" is that design with the gateways' \`reads: 'on-request'\` (a quiet key read only after a request).`,
    '',
    '| what | lines per CPU-second | median ≥ 200,000 |',
    '|---|---:|:---:|',
    `| the readers alone (parse) | ${mmm(b.parseCpu)} | ${b.parseCpu.median >= REPLAY_TARGET ? 'yes' : '**no**'} |`,
    ...rows.map((r) => r.replace(/^\| /, '| readers + ')),
    '',
  ].join('\n');
}
