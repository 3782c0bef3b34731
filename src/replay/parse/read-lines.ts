/**
 * A log file's lines, streamed in batches (one per chunk read), whether the file is plain or gzipped
 * (told by its first two bytes, 1f 8b, not by its name). A line is never held longer than
 * `maxLineLength` characters: a longer one is handed on cut, flagged, and the rest of it skipped, so a
 * file of binary junk without newlines costs no more memory than a chunk.
 */
import { readSync } from 'node:fs';
import { type FileHandle, open } from 'node:fs/promises';
import { pipeline } from 'node:stream';
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

/**
 * A plain file's chunks, read into one buffer again and again: each is cut into lines and handed on
 * before the next is read (a batch's bytes are good until the next batch is asked for). Read
 * synchronously (a regular file, 64 KiB at a time): through a read stream each chunk was a fresh
 * buffer and a trip through libuv's thread pool, three times the CPU of the reads themselves.
 */
async function* plainChunks(handle: FileHandle): AsyncGenerator<Buffer> {
  const buf = Buffer.allocUnsafeSlow(CHUNK_BYTES);
  let at = 0;
  for (;;) {
    const n = readSync(handle.fd, buf, 0, CHUNK_BYTES, at);
    if (n === 0) return;
    at += n;
    yield buf.subarray(0, n);
  }
}

/** The file's lines, in batches; throws (naming the file) when it is missing, unreadable or empty. */
export async function* readLines(file: string, maxLineLength: number): AsyncGenerator<LineBatch> {
  const handle = await openForReading(file);
  let source: AsyncIterable<Buffer>;
  let close: () => Promise<void> | undefined;
  try {
    const head = Buffer.alloc(2);
    const { bytesRead } = await handle.read(head, 0, 2, 0);
    if (bytesRead === 0) throw new Error(`cannot read log ${file}: the file is empty`);
    if (isGzip(head)) {
      // the stream closes the handle when it ends or is destroyed
      const raw = handle.createReadStream({ start: 0, highWaterMark: CHUNK_BYTES });
      // pipeline: an error in either stream ends the gunzip stream with it, and the loop below sees it
      const gunzip = pipeline(raw, createGunzip({ chunkSize: CHUNK_BYTES }), () => {});
      source = gunzip;
      close = () => {
        gunzip.destroy();
        raw.destroy();
        return undefined;
      };
    } else {
      source = plainChunks(handle);
      close = () => handle.close();
    }
  } catch (err) {
    await handle.close();
    if (err instanceof Error && err.message.startsWith('cannot read log')) throw err;
    throw new Error(`cannot read log ${file}: ${(err as Error).message}`);
  }

  const lines = new LineSplitter(maxLineLength);

  try {
    for await (const chunk of source) {
      lines.chunk(chunk);
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
    // also when the reader stops early: no stream left reading a closed handle, no file left open
    await close();
  }
  lines.end();
  if (!lines.sawText) throw new Error(`cannot read log ${file}: the file is empty`);
  if (lines.count > 0) yield lines.take();
}
