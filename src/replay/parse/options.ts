/**
 * The options `fleetlimit replay` passes to the log readers (one per flag), their defaults, and the
 * checks that turn a bad combination into a clear error before any file is opened.
 */

export const LOG_FORMATS = ['combined', 'common', 'json', 'envoy'] as const;
export type LogFormat = (typeof LOG_FORMATS)[number];

export const ROUTE_MODES = ['round-robin', 'hash', 'random'] as const;
export type RouteMode = (typeof ROUTE_MODES)[number];

export const SPREAD_MODES = ['none', 'uniform'] as const;
export type SpreadMode = (typeof SPREAD_MODES)[number];

export const TIME_UNITS = ['auto', 's', 'ms', 'iso'] as const;
export type TimeUnit = (typeof TIME_UNITS)[number];

/** What `openArrivals` reads and how (one field per `fleetlimit replay` flag). */
export interface ReadOptions {
  /** `--format`: NGINX/Apache `combined` or `common`, JSON lines, or Envoy's default access-log format. */
  format: LogFormat;
  /**
   * `--key`: what the limit is keyed by, parts joined by `+` (see parseKeySpec): `ip`, `path`,
   * `header:NAME` (combined: referer, user-agent; envoy: x-forwarded-for, user-agent, x-request-id,
   * :authority; json: the field NAME), `field:NAME` (json only). Default `ip`.
   */
  key?: string;
  /**
   * `--gateways`: K. Without `route`, each file is one gateway's log and K is the number of files (a
   * different K is an error). With `route`, the files are read as one log split over K gateways.
   */
  gateways?: number;
  /** `--route`: split the log over K gateways: in turn, by a hash of the key, or by a seeded draw. */
  route?: RouteMode;
  /**
   * `--spread`: where arrivals that share a one-second stamp go inside that second: `none` keeps the
   * stamps as written, `uniform` draws each a millisecond in its second (seeded). Stamps that carry
   * milliseconds are kept either way. Default `none`.
   */
  spread?: SpreadMode;
  /** `--seed`: for `--route random` and `--spread uniform`. Default 1. */
  seed?: number;
  /**
   * `--reorder-window`: how far back in time (ms) a line may be and still be put in order. Older lines
   * are counted `late` and placed at the window's edge. Memory follows this window. Default 60,000.
   */
  reorderWindowMs?: number;
  /** `--time-field` (json): the field holding the time. Default `time`. */
  timeField?: string;
  /**
   * `--time-unit` (json): `s` or `ms` since the epoch, `iso` (ISO-8601), or `auto`: numbers below 10^11
   * are seconds, larger ones ms, strings ISO-8601 (or a number). Default `auto`.
   */
  timeUnit?: TimeUnit;
  /** `--status-field` (json): the field holding the HTTP status (absent: no status). Default `status`. */
  statusField?: string;
  /** (json) The field `--key ip` reads. Default `ip`. */
  ipField?: string;
  /** (json) The field `--key path` reads. Default `path`. */
  pathField?: string;
  /** Lines longer than this many characters are counted malformed, never held whole. Default 65,536. */
  maxLineLength?: number;
  /** How many malformed lines to keep for the report. Default 10. */
  keepMalformed?: number;
}

/** ReadOptions with every default filled in and every value checked. */
export interface ResolvedOptions {
  format: LogFormat;
  key: string;
  gateways: number;
  route: RouteMode | undefined;
  spread: SpreadMode;
  seed: number;
  reorderWindowMs: number;
  timeField: string;
  timeUnit: TimeUnit;
  statusField: string;
  ipField: string;
  pathField: string;
  maxLineLength: number;
  keepMalformed: number;
}

export const DEFAULT_REORDER_WINDOW_MS = 60_000;
export const DEFAULT_MAX_LINE_LENGTH = 64 * 1024;
export const DEFAULT_KEEP_MALFORMED = 10;

/**
 * A bad reader option. `option` names it and `detail` says what is wrong without the name, so a
 * caller that took the option from a flag can name the flag instead (src/cli/log-flags.ts).
 */
export class OptionError extends Error {
  constructor(
    readonly option: keyof ReadOptions,
    readonly detail: string,
    message = `${option} ${detail}`,
  ) {
    super(message);
  }
}

function oneOf<T extends string>(name: keyof ReadOptions, value: unknown, values: readonly T[]): T {
  if (typeof value !== 'string' || !(values as readonly string[]).includes(value)) {
    throw new OptionError(name, `must be one of ${values.join(', ')}; got ${JSON.stringify(value)}`);
  }
  return value as T;
}

function wholeNumber(name: keyof ReadOptions, value: number, min: number): number {
  if (!Number.isSafeInteger(value) || value < min) {
    throw new OptionError(name, `must be an integer of at least ${min}; got ${value}`);
  }
  return value;
}

function fieldName(name: keyof ReadOptions, value: string): string {
  if (typeof value !== 'string' || value === '')
    throw new OptionError(name, `must be a field name; got ${JSON.stringify(value)}`);
  return value;
}

/** Fills in the defaults and checks every option; `fileCount` decides K when there is no route. */
export function resolveOptions(opts: ReadOptions, fileCount: number): ResolvedOptions {
  const format = oneOf('format', opts.format, LOG_FORMATS);
  const route = opts.route === undefined ? undefined : oneOf('route', opts.route, ROUTE_MODES);
  let gateways: number;
  if (route === undefined) {
    gateways = fileCount;
    if (opts.gateways !== undefined && opts.gateways !== fileCount) {
      const detail =
        fileCount === 1
          ? `one file split over ${opts.gateways} gateways needs a route (round-robin, hash or random)`
          : `${fileCount} files are ${fileCount} gateways' logs, one each; got gateways ${opts.gateways} (with a route, the files are read as one log split over the gateways)`;
      throw new OptionError('gateways', detail, `gateways: ${detail}`);
    }
  } else {
    gateways = wholeNumber('gateways', opts.gateways ?? 1, 1);
  }
  const reorderWindowMs = opts.reorderWindowMs ?? DEFAULT_REORDER_WINDOW_MS;
  if (!(Number.isFinite(reorderWindowMs) && reorderWindowMs >= 0)) {
    throw new OptionError('reorderWindowMs', `must be a number of ms, 0 or more; got ${reorderWindowMs}`);
  }
  const seed = opts.seed ?? 1;
  if (!Number.isSafeInteger(seed)) throw new OptionError('seed', `must be an integer; got ${seed}`);
  return {
    format,
    key: opts.key ?? 'ip',
    gateways,
    route,
    spread: opts.spread === undefined ? 'none' : oneOf('spread', opts.spread, SPREAD_MODES),
    seed,
    reorderWindowMs,
    timeField: fieldName('timeField', opts.timeField ?? 'time'),
    timeUnit: opts.timeUnit === undefined ? 'auto' : oneOf('timeUnit', opts.timeUnit, TIME_UNITS),
    statusField: fieldName('statusField', opts.statusField ?? 'status'),
    ipField: fieldName('ipField', opts.ipField ?? 'ip'),
    pathField: fieldName('pathField', opts.pathField ?? 'path'),
    maxLineLength: wholeNumber('maxLineLength', opts.maxLineLength ?? DEFAULT_MAX_LINE_LENGTH, 16),
    keepMalformed: wholeNumber('keepMalformed', opts.keepMalformed ?? DEFAULT_KEEP_MALFORMED, 0),
  };
}
