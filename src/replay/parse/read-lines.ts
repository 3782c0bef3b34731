/**
 * A log file's lines, streamed in batches (one per chunk read), whether the file is plain or gzipped
 * (told by its first two bytes, 1f 8b, not by its name). A line is never held longer than
 * `maxLineLength` characters: a longer one is handed on cut, flagged, and the rest of it skipped, so a
 * file of binary junk without newlines costs no more memory than a chunk.
 */
import type { ReadStream } from 'node:fs';
import { open } from 'node:fs/promises';
import { pipeline, type Readable } from 'node:stream';
import { createGunzip } from 'node:zlib';
import { type LineBatch, LineSplitter } from './line-splitter.js';

export type { LineBatch } from './line-splitter.js';

// 64 KiB: a string of 256 KiB is made in the large-object space, and decoding one cost 20 times more per line
const CHUNK_BYTES = 64 * 1024;

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

  const lines = new LineSplitter(maxLineLength);

  try {
    for await (const chunk of source) {
      lines.chunk(chunk as Buffer);
      if (lines.count > 0) yield lines.take();
    }
  } catch (err) {
    // a gzip stream cut short or corrupt: what came before it stands, the rest is reported
    if (!lines.sawText && lines.lineNo === 1)
      throw new Error(`cannot read log ${file}: ${(err as Error).message}`);
    lines.end();
    const last = lines.take();
    last.brokenOff = `the file cannot be read past here: ${(err as Error).message}`;
    yield last;
    return;
  } finally {
    // also when the reader stops early: no stream left reading a closed handle
    source.destroy();
    raw.destroy();
  }
  lines.end();
  if (!lines.sawText) throw new Error(`cannot read log ${file}: the file is empty`);
  if (lines.count > 0) yield lines.take();
}
