// Regression: a key the readers cut from a line (an address of 13 characters or more) was a view of
// the 64 KiB chunk its line was read in, so every arrival, tally or gateway entry that kept the key
// kept the chunk alive. Keeping one key from each chunk kept the whole file in memory.
// Live: real memory measured (gc() from the live project's --expose-gc).
import { rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import type { Arrival } from '../../src/replay/arrival.js';
import { openArrivals } from '../../src/replay/parse/index.js';
import { writeLog } from '../../src/replay/parse/write-log.js';

const LINES = 40_000;
const file = join(tmpdir(), `fleetlimit-replay-key-chunk-${process.pid}.log`);
afterAll(() => rmSync(file, { force: true }));
const gc = (globalThis as { gc?: () => void }).gc ?? (() => {});
const MB = 1024 * 1024;

function* lines(): Generator<Arrival> {
  const t0 = Date.UTC(2026, 0, 5);
  for (let i = 0; i < LINES; i++) {
    // 15-character addresses: a slice this long is a view of its parent string
    yield { t: t0 + i, key: `10.${100 + (i % 100)}.${100 + ((i >> 7) % 100)}.${100 + (i % 97)}`, gateway: 0 };
  }
}

it('a key kept from each chunk read does not keep the chunks', async () => {
  await writeLog(file, lines(), { format: 'combined' });
  gc();
  const before = process.memoryUsage().heapUsed;
  // one key of every 300 lines (about one per chunk), as a gateway or a tally keeps the keys it saw
  const kept: string[] = [];
  let n = 0;
  for await (const a of openArrivals([file], { format: 'combined', reorderWindowMs: 0 }).arrivals)
    if (n++ % 300 === 0) kept.push(a.key);
  gc();
  const held = process.memoryUsage().heapUsed - before;
  expect(kept.length).toBe(Math.ceil(LINES / 300));
  // 134 short strings; the chunks they were read from are ~5 MB of text
  expect(held).toBeLessThan(1 * MB);
});
