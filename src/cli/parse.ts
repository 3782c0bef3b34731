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

const UNIT_S = { ms: 0.001, s: 1, m: 60, h: 3600 } as const;

/**
 * A duration in seconds: "250ms", "10s", "1m", "2h", or a bare number in `bareUnit`. A bare number of
 * seconds (and "1.1s") is the number itself, not a product, so "1.1" gives exactly 1.1.
 */
export function seconds(flag: string, raw: string, bareUnit: 'ms' | 's' = 's'): number {
  const m = /^\s*(\d+(?:\.\d+)?(?:e[+-]?\d+)?)\s*(ms|s|m|h)?\s*$/i.exec(raw);
  if (m === null) throw new UsageError(flag, `expected a duration like 250ms, 10s or 1m; got "${raw}"`);
  const n = Number(m[1]);
  const unit = (m[2]?.toLowerCase() ?? bareUnit) as keyof typeof UNIT_S;
  const v = unit === 's' ? n : unit === 'ms' ? n / 1000 : n * UNIT_S[unit];
  if (!(v > 0) || !Number.isFinite(v)) throw new UsageError(flag, `must be greater than 0, got "${raw}"`);
  return v;
}

/** A duration in ms (see seconds()); a bare number is ms unless bareUnit says otherwise. */
export function millis(flag: string, raw: string, bareUnit: 'ms' | 's' = 'ms'): number {
  const m = /^\s*(\d+(?:\.\d+)?)\s*(ms|s|m|h)?\s*$/i.exec(raw);
  if (m !== null && (m[2] ?? bareUnit).toLowerCase() === 'ms') {
    const v = Number(m[1]);
    if (!(v > 0)) throw new UsageError(flag, `must be greater than 0, got "${raw}"`);
    return v;
  }
  return seconds(flag, raw, bareUnit) * 1000;
}

/**
 * A limit: "100" (L, the window from --window) or "100/1m" (L per W). A window given both ways must
 * agree, so a run never silently uses one of two.
 */
export function limitPerWindow(
  raw: string,
  windowRaw: string | undefined,
  defaultWindowS: number,
  opts: { max?: number; maxWindowS?: number } = {},
): { limit: number; windowS: number } {
  const slash = raw.indexOf('/');
  const limit = num('--limit', slash < 0 ? raw : raw.slice(0, slash), {
    integer: true,
    min: 1,
    ...(opts.max === undefined ? {} : { max: opts.max }),
  });
  const fromWindow = windowRaw === undefined ? undefined : seconds('--window', windowRaw);
  const fromLimit = slash < 0 ? undefined : seconds('--limit', raw.slice(slash + 1));
  if (fromWindow !== undefined && fromLimit !== undefined && fromWindow !== fromLimit)
    throw new UsageError('--window', `${windowRaw} disagrees with --limit ${raw}: give the window once`);
  const windowS = fromLimit ?? fromWindow ?? defaultWindowS;
  if (opts.maxWindowS !== undefined && windowS > opts.maxWindowS)
    throw new UsageError('--window', `must be at most ${opts.maxWindowS} s, got ${windowS} s`);
  return { limit, windowS };
}
