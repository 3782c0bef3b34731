/** Log files for the replay readers' tests: written to a fresh temp directory, removed after. */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import type { Arrival, ReadStats } from '../../src/replay/arrival.js';
import { openArrivals, type ReadOptions } from '../../src/replay/parse/index.js';

export class LogDir {
  readonly dir = mkdtempSync(join(tmpdir(), 'fleetlimit-replay-'));

  /** Writes lines (each ended by a newline) or raw bytes; gzipped when asked. */
  file(name: string, content: string[] | string | Buffer, opts: { gzip?: boolean } = {}): string {
    const path = join(this.dir, name);
    const raw = Array.isArray(content) ? `${content.join('\n')}\n` : content;
    const bytes = typeof raw === 'string' ? Buffer.from(raw) : raw;
    writeFileSync(path, opts.gzip ? gzipSync(bytes) : bytes);
    return path;
  }

  remove(): void {
    rmSync(this.dir, { recursive: true, force: true });
  }
}

/** Every arrival of the logs, and the stats once the stream has ended. */
export async function readAll(
  files: string[],
  opts: ReadOptions,
): Promise<{ arrivals: Arrival[]; stats: ReadStats }> {
  const src = openArrivals(files, opts);
  const arrivals: Arrival[] = [];
  for await (const a of src.arrivals) arrivals.push(a);
  return { arrivals, stats: src.stats() };
}
