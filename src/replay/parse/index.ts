/**
 * The log readers of `fleetlimit replay`: access logs in, one stream of arrivals in time order out
 * (the contract in ../arrival.ts). `openArrivals` is the one entry the replay engine calls.
 */
import { accessSync, constants, statSync } from 'node:fs';
import { Random } from '../../sim/random.js';
import type { Arrival, ArrivalSource } from '../arrival.js';
import { ClfParser } from './clf-parser.js';
import { EnvoyParser } from './envoy-parser.js';
import { fileArrivals } from './file-arrivals.js';
import { JsonParser } from './json-parser.js';
import { type KeyPart, parseKeySpec } from './key-spec.js';
import type { LineParser } from './line-parser.js';
import { mergeSorted } from './merge-sorted.js';
import { oneByOne } from './one-by-one.js';
import { type ReadOptions, type ResolvedOptions, resolveOptions } from './options.js';
import { StatsKeeper } from './read-stats.js';
import { makeRouter } from './route.js';

export { parseKeySpec } from './key-spec.js';
export type { LogFormat, ReadOptions, RouteMode, SpreadMode, TimeUnit } from './options.js';
export { LOG_FORMATS, OptionError, ROUTE_MODES, SPREAD_MODES, TIME_UNITS } from './options.js';

/** A parser for one file (parsers keep the last line's fields, so each file has its own). */
function makeParser(o: ResolvedOptions, key: KeyPart[]): LineParser {
  if (o.format === 'combined' || o.format === 'common') return new ClfParser(o.format, key);
  if (o.format === 'envoy') return new EnvoyParser(key);
  return new JsonParser(key, o);
}

/** Throws an Error naming the file unless it is a readable, non-empty file. */
function checkReadable(file: string): void {
  let size: number;
  try {
    const st = statSync(file);
    if (!st.isFile()) throw new Error(`cannot read log ${file}: not a file`);
    size = st.size;
    accessSync(file, constants.R_OK);
  } catch (err) {
    if (err instanceof Error && err.message.startsWith('cannot read log')) throw err;
    const code = (err as NodeJS.ErrnoException).code;
    const why =
      code === 'ENOENT' ? 'no such file' : code === 'EACCES' ? 'permission denied' : (err as Error).message;
    throw new Error(`cannot read log ${file}: ${why}`);
  }
  if (size === 0) throw new Error(`cannot read log ${file}: the file is empty`);
}

/** A seed for one of the readers' independent draws (stream 0: the route; 1 + i: file i's spread). */
function streamSeed(seed: number, stream: number): number {
  return (Math.imul(seed ^ 0x2545f491, 0x9e3779b1) + Math.imul(stream + 1, 0x85ebca6b)) | 0;
}

/**
 * Opens access logs as one stream of arrivals in ascending time (ties in file, then read, order).
 *
 * - `files`: each file is one gateway's log (gateway = the file's index, K = the number of files),
 *   or, with `opts.route`, the files together are one log split over `opts.gateways` gateways. Plain
 *   or gzipped (told by the first two bytes).
 * - `opts`: see ReadOptions: `format` (required), `key` (default `ip`), `gateways`, `route`,
 *   `spread` (default `none`), `seed` (default 1), `reorderWindowMs` (default 60,000), the JSON
 *   fields `timeField` (`time`), `timeUnit` (`auto`), `statusField` (`status`), `ipField` (`ip`),
 *   `pathField` (`path`), and `maxLineLength` (65,536), `keepMalformed` (10).
 *
 * Throws at once (an Error naming the file or the option) for a missing, unreadable or empty file,
 * a bad option or a key the format cannot give. While streaming, malformed lines are counted (the
 * first few kept, with file, line and reason), never thrown; `stats()` is complete once the stream
 * has ended. The stream can be read once.
 */
export function openArrivals(files: readonly string[], opts: ReadOptions): ArrivalSource {
  if (!Array.isArray(files) || files.length === 0) throw new Error('no log files given');
  const o = resolveOptions(opts, files.length);
  const key = parseKeySpec(o.key, o.format);
  for (const file of files) checkReadable(file);
  const stats = new StatsKeeper(files, o.keepMalformed);
  const route = o.route === undefined ? undefined : makeRouter(o.route, o.gateways, streamSeed(o.seed, 0));

  async function* batches(): AsyncGenerator<Arrival[]> {
    const sources = files.map((file, fileIndex) =>
      fileArrivals({
        file,
        fileIndex,
        parser: makeParser(o, key),
        gateway: route === undefined ? fileIndex : 0,
        spread: o.spread === 'uniform' ? new Random(streamSeed(o.seed, 1 + fileIndex)) : undefined,
        reorderWindowMs: o.reorderWindowMs,
        maxLineLength: o.maxLineLength,
        stats,
      }),
    );
    for await (const batch of mergeSorted(sources)) {
      if (route !== undefined) for (const a of batch) a.gateway = route(a.key);
      yield batch;
    }
  }
  // either one is read; a generator starts only when read, so the other opens no file
  const batched = batches();
  return { arrivals: oneByOne(batched), batches: batched, stats: () => stats.snapshot() };
}
