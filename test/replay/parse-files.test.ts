// Files: gzip told by magic bytes, K files as K gateways, one log routed over K, and the clear errors
// for empty, missing and unreadable files and bad options.
import { chmodSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';
import type { Arrival } from '../../src/replay/arrival.js';
import { openArrivals } from '../../src/replay/parse/index.js';
import { formatLine } from '../../src/replay/parse/write-log.js';
import { LogDir, readAll } from '../support/replay-logs.js';

const logs = new LogDir();
afterAll(() => logs.remove());

const T0 = Date.UTC(2026, 0, 5, 12, 0, 0);
const line = (t: number, key: string, status = 200) =>
  formatLine({ t, key, gateway: 0, status }, { format: 'combined' });
const LINES = Array.from({ length: 300 }, (_, i) =>
  line(T0 + i * 1000, `10.0.${i % 7}.${i % 5}`, i % 9 ? 200 : 429),
);

describe('gzip', () => {
  it('reads a gzipped file by its magic bytes, whatever its name', async () => {
    const plain = await readAll([logs.file('plain.log', LINES)], { format: 'combined' });
    const gz = await readAll([logs.file('gzipped.log', LINES, { gzip: true })], { format: 'combined' });
    const plainNamedGz = await readAll([logs.file('plain.log.gz', LINES)], { format: 'combined' });
    expect(plain.arrivals).toHaveLength(300);
    expect(gz.arrivals).toEqual(plain.arrivals);
    expect(plainNamedGz.arrivals).toEqual(plain.arrivals);
  });

  it('reads concatenated gzip members (rotated logs joined) as one file', async () => {
    const bytes = Buffer.concat([
      gzipSync(`${LINES.slice(0, 100).join('\n')}\n`),
      gzipSync(`${LINES.slice(100).join('\n')}\n`),
    ]);
    const { arrivals } = await readAll([logs.file('members.gz', bytes)], { format: 'combined' });
    expect(arrivals).toHaveLength(300);
  });

  it('keeps what comes before a cut gzip stream and reports the cut as malformed', async () => {
    const whole = gzipSync(`${LINES.join('\n')}\n`);
    const cut = logs.file('cut.gz', whole.subarray(0, Math.floor(whole.length * 0.6)));
    const { arrivals, stats } = await readAll([cut], { format: 'combined' });
    expect(arrivals.length).toBeGreaterThan(0);
    expect(arrivals.length).toBeLessThan(300);
    expect(stats.malformed).toBeGreaterThanOrEqual(1);
    const last = stats.firstMalformed[stats.firstMalformed.length - 1];
    expect(last.reason).toMatch(/cannot be read past here/);
    expect(last.file).toBe(cut);
  });
});

describe('several files', () => {
  it('reads K files as K gateways, merged in time order (ties in file order)', async () => {
    const a = logs.file('gw0.log', [line(T0, 'a0'), line(T0 + 2000, 'a2'), line(T0 + 4000, 'a4')]);
    const b = logs.file('gw1.log', [line(T0 + 1000, 'b1'), line(T0 + 2000, 'b2')]);
    const c = logs.file('gw2.log.gz', [line(T0 + 3000, 'c3'), line(T0, 'c0')], { gzip: true });
    const { arrivals, stats } = await readAll([a, b, c], { format: 'combined' });
    expect(arrivals.map((x) => [x.key, x.gateway])).toEqual([
      ['a0', 0],
      ['c0', 2],
      ['b1', 1],
      ['a2', 0],
      ['b2', 1],
      ['c3', 2],
      ['a4', 0],
    ]);
    expect(stats).toMatchObject({ files: [a, b, c], lines: 7, arrivals: 7, reordered: 1 });
  });

  it('keeps the first malformed lines in file order, though files are read side by side', async () => {
    const a = logs.file('bad0.log', [line(T0 + 5000, 'a'), 'junk a2', 'junk a3']);
    const b = logs.file('bad1.log', ['junk b1', line(T0, 'b')]);
    const { stats } = await readAll([a, b], { format: 'combined', keepMalformed: 2 });
    expect(stats.malformed).toBe(3);
    expect(stats.firstMalformed.map((m) => [m.file, m.line])).toEqual([
      [a, 2],
      [a, 3],
    ]);
  });
});

describe('--route: one log over K gateways', () => {
  const routed = (
    opts: { route: 'round-robin' | 'hash' | 'random'; seed?: number },
    file = logs.file('route.log', LINES),
  ) => readAll([file], { format: 'combined', gateways: 3, ...opts });

  it('round-robin gives gateways in turn, in time order', async () => {
    const { arrivals } = await routed({ route: 'round-robin' });
    expect(arrivals.map((a) => a.gateway)).toEqual(arrivals.map((_, i) => i % 3));
  });

  it('hash keeps each key on one gateway, the same on every run', async () => {
    const one = (await routed({ route: 'hash' })).arrivals;
    const two = (await routed({ route: 'hash' })).arrivals;
    expect(two).toEqual(one);
    const byKey = new Map<string, Set<number>>();
    for (const a of one) byKey.set(a.key, (byKey.get(a.key) ?? new Set()).add(a.gateway));
    for (const gateways of byKey.values()) expect(gateways.size).toBe(1);
    expect(new Set(one.map((a) => a.gateway)).size).toBe(3);
  });

  it('random is seeded: the same seed, the same gateways', async () => {
    const gw = async (seed: number) =>
      (await routed({ route: 'random', seed })).arrivals.map((a) => a.gateway);
    const a = await gw(5);
    expect(await gw(5)).toEqual(a);
    expect(await gw(6)).not.toEqual(a);
    const counts = [0, 1, 2].map((g) => a.filter((x) => x === g).length);
    for (const c of counts) expect(c).toBeGreaterThan(60);
  });

  it('routes several files read as one log', async () => {
    const a = logs.file('rot1.log', LINES.slice(0, 150));
    const b = logs.file('rot2.log.gz', LINES.slice(150), { gzip: true });
    const { arrivals } = await readAll([a, b], { format: 'combined', route: 'round-robin', gateways: 4 });
    expect(arrivals.map((x) => x.gateway)).toEqual(arrivals.map((_, i) => i % 4));
  });
});

describe('clear errors', () => {
  it('an empty, missing or unreadable file is an Error naming the file', async () => {
    const empty = logs.file('empty.log', '');
    expect(() => openArrivals([empty], { format: 'combined' })).toThrow(
      `cannot read log ${empty}: the file is empty`,
    );
    const missing = join(logs.dir, 'nope.log');
    expect(() => openArrivals([missing], { format: 'combined' })).toThrow(
      `cannot read log ${missing}: no such file`,
    );
    const dir = join(logs.dir, 'a-dir');
    mkdirSync(dir);
    expect(() => openArrivals([dir], { format: 'combined' })).toThrow(`cannot read log ${dir}: not a file`);
    // empty once unzipped: found while reading
    const emptyGz = logs.file('empty.gz', gzipSync(Buffer.alloc(0)));
    await expect(readAll([emptyGz], { format: 'combined' })).rejects.toThrow(
      `cannot read log ${emptyGz}: the file is empty`,
    );
    expect(() => openArrivals([], { format: 'combined' })).toThrow('no log files given');
  });

  it.skipIf(process.getuid?.() === 0)('a file without read permission', () => {
    const locked = logs.file('locked.log', LINES);
    chmodSync(locked, 0);
    expect(() => openArrivals([locked], { format: 'combined' })).toThrow(
      `cannot read log ${locked}: permission denied`,
    );
  });

  it('bad options name the option', () => {
    const f = logs.file('opts.log', LINES);
    const open = (o: object) => () => openArrivals([f], { format: 'combined', ...o });
    expect(open({ format: 'w3c' })).toThrow('format must be one of combined, common, json, envoy; got "w3c"');
    expect(open({ gateways: 3 })).toThrow('one file split over 3 gateways needs a route');
    expect(() => openArrivals([f, f], { format: 'combined', gateways: 3 })).toThrow('2 files are 2 gateways');
    expect(open({ route: 'sticky', gateways: 2 })).toThrow('route must be one of round-robin, hash, random');
    expect(open({ route: 'hash', gateways: 0 })).toThrow('gateways must be an integer of at least 1');
    expect(open({ spread: 'poisson' })).toThrow('spread must be one of none, uniform');
    expect(open({ reorderWindowMs: -1 })).toThrow('reorderWindowMs must be');
    expect(open({ seed: 1.5 })).toThrow('seed must be an integer');
    expect(open({ key: 'header:x-api-key' })).toThrow(
      '--key header:x-api-key: the combined format writes only referer, user-agent',
    );
  });

  it('a reader stopped early closes its files, with nothing left reading them', async () => {
    // big enough that both files are mid-stream when the reader stops
    const many = Array.from({ length: 60 }, () => LINES).flat();
    const files = [logs.file('early0.log', many), logs.file('early1.log.gz', many, { gzip: true })];
    for (let round = 0; round < 3; round++) {
      const src = openArrivals(files, { format: 'combined' });
      const seen: Arrival[] = [];
      for await (const a of src.arrivals) {
        seen.push(a);
        if (seen.length === 10) break;
      }
      expect(seen).toHaveLength(10);
      expect(src.stats().lines).toBeLessThan(2 * many.length);
    }
    // every file request has ended: a stream still reading a closed file would have failed the run
    // with an uncaught error by then
    expect(await fileRequestsEnded()).toEqual([]);
  });
});

/**
 * Turns of the event loop (no clock) until this thread has no file or gzip request in flight; what is
 * still in flight after a bounded number of turns, else [].
 */
async function fileRequestsEnded(): Promise<string[]> {
  const inFlight = () =>
    process.getActiveResourcesInfo().filter((r) => /^(FSReq|FileHandle|CloseReq|Zlib)/.test(r));
  for (let turn = 0; turn < 100_000 && inFlight().length > 0; turn++) {
    await new Promise((resolve) => setImmediate(resolve));
  }
  return inFlight();
}
