/**
 * The flags that say how to read access logs, shared by `replay` and `advise --traffic`, and their
 * translation to the log readers' options (src/replay/parse/). The readers name an option in their
 * errors; here that becomes the flag, so a bad value is a usage error naming what the user typed.
 */
import type { Command } from 'commander';
import type { ArrivalSource } from '../replay/arrival.js';
import {
  LOG_FORMATS,
  OptionError,
  openArrivals,
  type ReadOptions,
  ROUTE_MODES,
  SPREAD_MODES,
  TIME_UNITS,
} from '../replay/parse/index.js';
import { addOptions, type OptionRow } from './option-table.js';
import { durationMs, UsageError } from './parse.js';

export interface LogFlags {
  format: string;
  key: string;
  route?: string;
  spread: string;
  timeField?: string;
  timeUnit?: string;
  statusField?: string;
  ipField?: string;
  pathField?: string;
  reorderWindow?: string;
}

/** The readers' option names, by the flag that sets each. */
const FLAG_OF: Partial<Record<keyof ReadOptions, string>> = {
  format: '--format',
  key: '--key',
  route: '--route',
  gateways: '--gateways',
  spread: '--spread',
  seed: '--seed',
  reorderWindowMs: '--reorder-window',
  timeField: '--time-field',
  timeUnit: '--time-unit',
  statusField: '--status-field',
  ipField: '--ip-field',
  pathField: '--path-field',
};

/** The log flags, in the order --help lists them. */
const LOG_OPTIONS: readonly OptionRow[] = [
  ['--format <name>', `the logs' format: ${LOG_FORMATS.join(', ')}`, 'combined'],
  ['--key <spec>', 'what the limit is keyed by: ip, path, header:NAME, field:NAME, joined by +', 'ip'],
  ['--route <how>', `read the files as one log split over --gateways: ${ROUTE_MODES.join(', ')}`],
  [
    '--spread <how>',
    `requests stamped to the second: ${SPREAD_MODES.join(' (as written) or ')} (seeded draws inside the second)`,
    'uniform',
  ],
  ['--time-field <name>', 'json: the field with the time (epoch s or ms, or ISO-8601)', 'time'],
  ['--time-unit <unit>', `json: how to read a numeric time: ${TIME_UNITS.join(', ')}`, 'auto'],
  ['--status-field <name>', 'json: the field with the HTTP status', 'status'],
  ['--ip-field <name>', 'json: the field with the client address (--key ip)', 'ip'],
  ['--path-field <name>', 'json: the field with the request path (--key path)', 'path'],
  ['--reorder-window <duration>', 'how far out of time order a line may be put back in order', '60s'],
];

export function addLogFlags(cmd: Command): Command {
  return addOptions(cmd, LOG_OPTIONS);
}

/** The readers' options for these flags. */
export function readOptions(f: LogFlags, gateways: number, seed: number): ReadOptions {
  return {
    format: f.format as ReadOptions['format'],
    key: f.key,
    gateways,
    ...(f.route === undefined ? {} : { route: f.route as ReadOptions['route'] }),
    spread: f.spread as ReadOptions['spread'],
    seed,
    ...(f.reorderWindow === undefined
      ? {}
      : { reorderWindowMs: durationMs('--reorder-window', f.reorderWindow) }),
    ...(f.timeField === undefined ? {} : { timeField: f.timeField }),
    ...(f.timeUnit === undefined ? {} : { timeUnit: f.timeUnit as ReadOptions['timeUnit'] }),
    ...(f.statusField === undefined ? {} : { statusField: f.statusField }),
    ...(f.ipField === undefined ? {} : { ipField: f.ipField }),
    ...(f.pathField === undefined ? {} : { pathField: f.pathField }),
  };
}

/** The readers' error about an option, as a usage error naming its flag (others unchanged). */
export function asFlagError(err: unknown): unknown {
  return err instanceof OptionError ? new UsageError(FLAG_OF[err.option] ?? err.option, err.detail) : err;
}

/**
 * A way to open the logs as often as a run reads them (each pass a fresh stream). The first is opened
 * here, at once, so a bad flag or an unreadable file throws before any work, naming it; the first call
 * hands that one out.
 */
export function logOpener(
  files: readonly string[],
  f: LogFlags,
  gateways: number,
  seed: number,
): () => ArrivalSource {
  const open = () => {
    try {
      return openArrivals(files, readOptions(f, gateways, seed));
    } catch (err) {
      throw asFlagError(err);
    }
  };
  let first: ArrivalSource | null = open();
  return () => {
    const s = first ?? open();
    first = null;
    return s;
  };
}
