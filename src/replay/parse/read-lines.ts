/**
 * A log file's lines, streamed in batches (one per chunk read), whether the file is plain or gzipped
 * (told by its first two bytes, 1f 8b, not by its name). A line is never held longer than
 * `maxLineLength` characters: a longer one is handed on cut, flagged, and the rest of it skipped, so a
 * file of binary junk without newlines costs no more memory than a chunk.
 */
import type { ReadStream } from 'node:fs';
import { open } from 'node:fs/promises';
import { pipeline, type Readable } from 'node:stream';
import { StringDecoder } from 'node:string_decoder';
import { createGunzip } from 'node:zlib';

export interface LineBatch {
  lines: string[];
  /** The 1-based line number of lines[0]. */
  first: number;
  /** Indices into `lines` of lines longer than the limit; their text is only their start. */
  tooLong: number[];
  /** Set on the last batch when the file could not be read to its end (a corrupt gzip stream). */
  brokenOff?: string;
}

// 64 KiB: a string of 256 KiB is made in the large-object space, and decoding one cost 20 times more per line
const CHUNK_BYTES = 64 * 1024;
/** How much of an overlong line is kept to show where it was. */
const TOO_LONG_KEPT = 256;

/** Whether the first bytes are gzip's magic number. */
export function isGzip(head: Uint8Array): boolean {
  return head.length >= 2 && head[0] === 0x1f && head[1] === 0x8b;
}

/** Opens a file for reading or throws an Error that names it and says why. */
async function openForReading(file: string) {
  try {
    return await open(file, 'r');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    const why =
      code === 'ENOENT' ? 'no such file' : code === 'EACCES' ? 'permission denied' : (err as Error).message;
    throw new Error(`cannot read log ${file}: ${why}`);
  }
}

/** The file's lines, in batches; throws (naming the file) when it is missing, unreadable or empty. */
export async function* readLines(file: string, maxLineLength: number): AsyncGenerator<LineBatch> {
  const handle = await openForReading(file);
  let raw: ReadStream;
  let source: Readable;
  try {
    const head = Buffer.alloc(2);
    const { bytesRead } = await handle.read(head, 0, 2, 0);
    if (bytesRead === 0) throw new Error(`cannot read log ${file}: the file is empty`);
    // the stream closes the handle when it ends or is destroyed
    raw = handle.createReadStream({ start: 0, highWaterMark: CHUNK_BYTES });
    // pipeline: an error in either stream ends the gunzip stream with it, and the loop below sees it
    source = isGzip(head) ? pipeline(raw, createGunzip({ chunkSize: CHUNK_BYTES }), () => {}) : raw;
  } catch (err) {
    await handle.close();
    if (err instanceof Error && err.message.startsWith('cannot read log')) throw err;
    throw new Error(`cannot read log ${file}: ${(err as Error).message}`);
  }

  const decoder = new StringDecoder('utf8');
  let lineNo = 1;
  let carry = '';
  // inside an overlong line whose start was handed on: skip to its newline
  let skipping = false;
  let sawText = false;
  let batch: LineBatch = { lines: [], first: lineNo, tooLong: [] };

  const push = (text: string, tooLong: boolean) => {
    if (tooLong) batch.tooLong.push(batch.lines.length);
    batch.lines.push(text);
    lineNo++;
  };
  const take = (): LineBatch => {
    const out = batch;
    batch = { lines: [], first: lineNo, tooLong: [] };
    return out;
  };

  /** Hands on the lines of text[from..) that end in it; returns where the unfinished rest starts. */
  const scan = (text: string, from: number): number => {
    let pos = from;
    for (;;) {
      const nl = text.indexOf('\n', pos);
      if (nl < 0) break;
      if (skipping) {
        skipping = false;
      } else {
        let end = nl;
        if (end > pos && text.charCodeAt(end - 1) === 13) end--; // CRLF
        if (end - pos > maxLineLength) push(text.slice(pos, pos + TOO_LONG_KEPT), true);
        else push(text.slice(pos, end), false);
      }
      pos = nl + 1;
    }
    return pos;
  };

  const split = (decoded: string) => {
    // a byte-order mark some Windows tools write is not part of the first line
    const chunk = !sawText && decoded.charCodeAt(0) === 0xfeff ? decoded.slice(1) : decoded;
    if (decoded.length > 0) sawText = true;
    let text = chunk;
    let pos = 0;
    if (carry.length > 0) {
      // the carried line joined with its own end alone: a whole chunk joined to it was flattened by
      // the first indexOf, a copy of 64 KiB per chunk (most of the readers' garbage)
      const nl = chunk.indexOf('\n');
      if (nl < 0) text = carry + chunk;
      else {
        scan(carry + chunk.slice(0, nl + 1), 0);
        pos = nl + 1;
      }
      carry = '';
    }
    pos = scan(text, pos);
    if (skipping) return;
    const rest = pos === 0 ? text : text.slice(pos);
    if (rest.length > maxLineLength) {
      push(rest.slice(0, TOO_LONG_KEPT), true);
      skipping = true;
    } else {
      carry = rest;
    }
  };

  try {
    for await (const chunk of source) {
      split(decoder.write(chunk as Buffer));
      if (batch.lines.length > 0) yield take();
    }
  } catch (err) {
    // a gzip stream cut short or corrupt: what came before it stands, the rest is reported
    if (!sawText && lineNo === 1) throw new Error(`cannot read log ${file}: ${(err as Error).message}`);
    split(decoder.end());
    if (carry.length > 0) push(carry, false);
    const last = take();
    last.brokenOff = `the file cannot be read past here: ${(err as Error).message}`;
    yield last;
    return;
  } finally {
    // also when the reader stops early: no stream left reading a closed handle
    source.destroy();
    raw.destroy();
  }
  split(decoder.end());
  if (carry.length > 0) push(carry, false);
  if (!sawText) throw new Error(`cannot read log ${file}: the file is empty`);
  if (batch.lines.length > 0) yield take();
}
