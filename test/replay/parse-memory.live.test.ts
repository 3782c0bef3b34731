// Streaming: memory follows the reorder window, never the file. A log of 2 million lines (~245 MB)
// is read while the heap and RSS are sampled; both stay within a bound far below the file's size.
// Live: real memory measured (gc() from the live project's --expose-gc).
import { rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { Arrival } from '../../src/replay/arrival.js';
import { openArrivals } from '../../src/replay/parse/index.js';
import { writeLog } from '../../src/replay/parse/write-log.js';

const LINES = 2_000_000;
const file = join(tmpdir(), `fleetlimit-replay-memory-${process.pid}.log`);
afterAll(() => rmSync(file, { force: true }));

const gc = (globalThis as { gc?: () => void }).gc ?? (() => {});
const MB = 1024 * 1024;

/** 1,000 lines a second of stamps, every 100th 0-5 s behind, 50,000 client addresses. */
function* generated(): Generator<Arrival> {
  const t0 = Date.UTC(2026, 0, 5);
  for (let i = 0; i < LINES; i++) {
    const behind = i % 100 === 0 ? (i % 6) * 1000 : 0;
    const c = (i * 7919) % 50_000;
    yield { t: t0 + i - behind, key: `10.${c >> 16}.${(c >> 8) & 255}.${c & 255}`, gateway: 0, status: 200 };
  }
}

describe('reading a log of millions of lines', () => {
  it('holds the reorder window, not the file', async () => {
    await writeLog(file, generated(), { format: 'combined' });
    const bytes = statSync(file).size;
    expect(bytes).toBeGreaterThan(200 * MB);
    gc();
    const heap0 = process.memoryUsage().heapUsed;
    const rss0 = process.memoryUsage().rss;
    let rssPeak = 0;
    // live heap (after a full collection) every 500,000 arrivals
    const live: number[] = [];
    let n = 0;
    let last = Number.NEGATIVE_INFINITY;
    const src = openArrivals([file], { format: 'combined' });
    for await (const a of src.arrivals) {
      if (a.t < last) throw new Error(`out of order at arrival ${n}`);
      last = a.t;
      if (++n % 500_000 === 0) {
        rssPeak = Math.max(rssPeak, process.memoryUsage().rss - rss0);
        gc();
        live.push(process.memoryUsage().heapUsed - heap0);
      }
    }
    expect(n).toBe(LINES);
    expect(src.stats()).toMatchObject({ lines: LINES, arrivals: LINES, malformed: 0, late: 0 });
    // a 60 s window at 1,000 lines/s holds 60,000 arrivals; the file is ~245 MB
    console.log(
      `file ${(bytes / MB).toFixed(0)} MB; live heap growth ${live.map((x) => (x / MB).toFixed(1)).join(', ')} MB; RSS growth peak ${(rssPeak / MB).toFixed(1)} MB`,
    );
    expect(Math.max(...live)).toBeLessThan(40 * MB);
    // flat: the last sample (2 M lines read) is no larger than the first (0.5 M) but for noise
    expect(live[live.length - 1]).toBeLessThan(live[0] + 8 * MB);
    expect(rssPeak).toBeLessThan(200 * MB);
  });
});
