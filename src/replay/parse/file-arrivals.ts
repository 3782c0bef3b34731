/**
 * One log file's arrivals, in time order: its lines read, parsed, placed in their second
 * (`--spread`), and put back in order within the reorder window. Malformed lines are counted and the
 * first few kept; no line, however broken, stops the file.
 */
import type { Random } from '../../sim/random.js';
import type { Arrival } from '../arrival.js';
import type { LineParser } from './line-parser.js';
import { ownKey } from './own-key.js';
import { readLines } from './read-lines.js';
import type { StatsKeeper } from './read-stats.js';
import { ReorderWindow } from './reorder-window.js';

export interface FileReading {
  file: string;
  fileIndex: number;
  parser: LineParser;
  /** The gateway every arrival of this file is served by (routed logs get theirs later). */
  gateway: number;
  /** `--spread uniform`'s draws for this file; undefined for `none`. */
  spread: Random | undefined;
  reorderWindowMs: number;
  maxLineLength: number;
  stats: StatsKeeper;
}

/** The file's arrivals in ascending t, in batches. */
export async function* fileArrivals(r: FileReading): AsyncGenerator<Arrival[]> {
  const { parser, stats, gateway, spread } = r;
  const counts = stats.counts;
  const window = new ReorderWindow(r.reorderWindowMs, counts);
  let out: Arrival[] = [];
  /** The line the parser has just read as an arrival, its key `key`, into the window. */
  const arrive = (key: string) => {
    counts.arrivals++;
    const stamp = parser.t;
    // a one-second stamp: a ms drawn inside its second
    const t =
      spread !== undefined && parser.wholeSecond ? stamp + Math.floor(spread.uniform() * 1000) : stamp;
    window.pushFields(t, key, gateway, parser.status, stamp, out);
  };
  for await (const batch of readLines(r.file, r.maxLineLength)) {
    const { lines, tooLong, spans, bytes, count } = batch;
    let nextTooLong = tooLong.length > 0 ? tooLong[0] : -1;
    let tooLongAt = 0;
    counts.lines += count;
    for (let i = 0; i < count; i++) {
      let line: string;
      if (spans === undefined) line = lines[i];
      else {
        const start = spans[2 * i];
        const end = spans[2 * i + 1];
        if (start < 0) line = lines[end];
        else if (parser.parseBytes?.(bytes!, start, end) === true) {
          // its key is a string of its own already
          arrive(parser.key);
          continue;
        } else line = bytes!.toString('latin1', start, end);
      }
      if (i === nextTooLong) {
        stats.malformed(r.fileIndex, batch.first + i, line, `line longer than ${r.maxLineLength} characters`);
        nextTooLong = ++tooLongAt < tooLong.length ? tooLong[tooLongAt] : -1;
        continue;
      }
      const reason = parser.parse(line);
      if (reason !== null) {
        stats.malformed(r.fileIndex, batch.first + i, line, reason);
        continue;
      }
      arrive(ownKey(parser.key));
    }
    if (batch.brokenOff !== undefined) {
      counts.lines++;
      stats.malformed(r.fileIndex, batch.first + count, '', batch.brokenOff);
    }
    if (out.length > 0) {
      yield out;
      out = [];
    }
  }
  const rest: Arrival[] = [];
  window.flush(rest);
  if (rest.length > 0) yield rest;
}
