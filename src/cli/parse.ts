/** Parsing of command-line values: errors name the flag. Units are parsed here, at the edge, only. */

export class UsageError extends Error {
  constructor(flag: string, message: string) {
    super(`${flag}: ${message}`);
    this.name = 'UsageError';
  }
}

export function num(
  flag: string,
  raw: string,
  opts: { min?: number; max?: number; integer?: boolean; positive?: boolean } = {},
) {
  const v = Number(raw);
  if (raw.trim() === '' || !Number.isFinite(v)) throw new UsageError(flag, `expected a number, got "${raw}"`);
  if (opts.integer && !Number.isInteger(v)) throw new UsageError(flag, `expected an integer, got "${raw}"`);
  if (opts.positive && v <= 0) throw new UsageError(flag, `must be greater than 0, got ${raw}`);
  if (opts.min !== undefined && v < opts.min)
    throw new UsageError(flag, `must be at least ${opts.min}, got ${raw}`);
  if (opts.max !== undefined && v > opts.max)
    throw new UsageError(flag, `must be at most ${opts.max}, got ${raw}`);
  return v;
}

export function oneOf<T extends string>(flag: string, raw: string, values: readonly T[]): T {
  if (!(values as readonly string[]).includes(raw)) {
    throw new UsageError(flag, `must be one of ${values.join(', ')}; got "${raw}"`);
  }
  return raw as T;
}

/** Durations: "100ms", "1.5s", "1m", "2h", or a bare number in the given default unit. */
export function durationMs(flag: string, raw: string, bareUnit: 'ms' | 's' = 's'): number {
  const m = /^\s*(\d+(?:\.\d+)?)\s*(ms|s|m|h)?\s*$/.exec(raw);
  if (m === null) throw new UsageError(flag, `expected a duration like 100ms, 1s or 1m; got "${raw}"`);
  const unit = m[2] ?? bareUnit;
  const scale = unit === 'ms' ? 1 : unit === 's' ? 1000 : unit === 'm' ? 60_000 : 3_600_000;
  const v = Number(m[1]) * scale;
  if (!(v > 0)) throw new UsageError(flag, `must be greater than 0, got "${raw}"`);
  return v;
}
