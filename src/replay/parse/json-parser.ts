/**
 * JSON lines: one object per line, the time, status and key read from fields the flags name. A name
 * with dots (`req.ip`) reads nested objects when the object has no field of that exact name.
 */
import { KEY_JOINER, type KeyPart } from './key-spec.js';
import { failureReason, LineFields, type LineParser } from './line-parser.js';
import type { ResolvedOptions, TimeUnit } from './options.js';
import { isoResult, parseIsoTime } from './timestamps.js';

/** Epoch numbers below this are seconds, above it ms (10^11 s is the year 5138; 10^11 ms is 1973). */
const SECONDS_BELOW = 1e11;

function lookup(obj: Record<string, unknown>, name: string): unknown {
  const v = obj[name];
  if (v !== undefined || name.indexOf('.') < 0) return v;
  let at: unknown = obj;
  for (const step of name.split('.')) {
    if (at === null || typeof at !== 'object') return undefined;
    at = (at as Record<string, unknown>)[step];
  }
  return at;
}

export class JsonParser extends LineFields implements LineParser {
  private readonly fields: string[];

  constructor(
    key: KeyPart[],
    private readonly opts: Pick<
      ResolvedOptions,
      'timeField' | 'timeUnit' | 'statusField' | 'ipField' | 'pathField'
    >,
  ) {
    super(false);
    this.fields = key.map((p) =>
      p.kind === 'ip' ? opts.ipField : p.kind === 'path' ? opts.pathField : p.name,
    );
  }

  parse(line: string): string | null {
    const reason = this.read(line);
    return reason === null ? null : failureReason(line, reason);
  }

  private read(line: string): string | null {
    if (line.length === 0) return 'empty line';
    let obj: unknown;
    try {
      obj = JSON.parse(line);
    } catch {
      return 'not JSON (or a truncated line)';
    }
    if (obj === null || typeof obj !== 'object' || Array.isArray(obj)) return 'not a JSON object';
    const rec = obj as Record<string, unknown>;
    const t = this.time(lookup(rec, this.opts.timeField), this.opts.timeUnit);
    if (t === undefined) return `missing time field "${this.opts.timeField}"`;
    if (Number.isNaN(t)) return `bad date in "${this.opts.timeField}"`;
    this.t = t;
    const status = lookup(rec, this.opts.statusField);
    if (status === undefined || status === null) {
      this.status = undefined;
    } else {
      const s = typeof status === 'string' && status !== '' ? Number(status) : status;
      if (typeof s !== 'number' || !Number.isInteger(s) || s < 0 || s > 999) {
        return `bad status in "${this.opts.statusField}"`;
      }
      this.status = s;
    }
    let key = '';
    for (let i = 0; i < this.fields.length; i++) {
      const v = lookup(rec, this.fields[i]);
      if (typeof v !== 'string' && typeof v !== 'number' && typeof v !== 'boolean') {
        return `missing key field "${this.fields[i]}"`;
      }
      key = i === 0 ? String(v) : key + KEY_JOINER + String(v);
    }
    this.key = key;
    return null;
  }

  /** ms since the epoch; undefined when absent, NaN when not a time in the unit asked for. */
  private time(v: unknown, unit: TimeUnit): number | undefined {
    if (v === undefined || v === null) return undefined;
    if (typeof v === 'string') {
      if (unit === 'iso' || (unit === 'auto' && !/^\s*-?\d+(\.\d+)?\s*$/.test(v))) {
        const t = parseIsoTime(v, 0, v.length);
        this.wholeSecond = isoResult.wholeSecond;
        return t;
      }
      return this.epoch(Number(v), unit);
    }
    if (typeof v === 'number' && unit !== 'iso') return this.epoch(v, unit);
    return Number.NaN;
  }

  private epoch(x: number, unit: TimeUnit): number {
    if (!Number.isFinite(x) || x < 0) return Number.NaN;
    const seconds = unit === 's' || (unit === 'auto' && x < SECONDS_BELOW);
    this.wholeSecond = seconds && Number.isInteger(x);
    // seconds with a fraction are rounded to the ms (1.001 * 1000 is 1000.9999999999999)
    return seconds ? Math.round(x * 1000) : Math.floor(x);
  }
}
