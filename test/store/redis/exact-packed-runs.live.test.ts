/**
 * An exact log keeps the runs one touch adds as one member ('#<id>:<runs>*<admits>',
 * window-exact.lua): ZADD's work grows with the members a log holds. Such a member is scored by its
 * earliest run, so it ages out in parts: once its earliest run stops counting, prune replaces it by
 * a member of its runs that still count. The count, the oldest expiry and the expiries listed must
 * stay those of a log of one run per member (MemoryStore's), and the log must keep its expiry when
 * that replacement is all it holds.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Policy } from '../../../src/config.js';
import { MemoryStore } from '../../../src/store/memory-store.js';
import { readExactLog } from '../../support/exact-log.js';
import { keySync } from '../../support/one-key-sync.js';
import { type SingleFixture, singleServer } from '../../support/redis-fixtures.js';

let fx: SingleFixture;
beforeAll(async () => {
  fx = await singleServer();
});
afterAll(async () => {
  await fx?.close();
});

const policy: Policy = { limit: 100, windowMs: 1000, windowKind: 'sliding' };

it('one member per touch; a member partly aged keeps its counted runs, and the log its expiry', async () => {
  const s = fx.store({ clock: 'caller', mode: 'exact', expiryMarginMs: 600_000 });
  const mem = new MemoryStore();
  const { log } = s.keyNames('k', policy);
  const both = async (seq: number, admits: number[], now: number) => {
    const req = keySync(policy, seq, admits);
    const [r, m] = [await s.sync(req, now), mem.sync(req, now)];
    expect(r.replies[0].count).toBe(m.replies[0].count);
    expect(r.replies[0].expiries).toEqual(m.replies[0].expiries);
    return r.replies[0];
  };
  await both(1, [10_000, 10_100, 10_100, 10_200, 10_250], 10_250);
  expect((await fx.client().zrangeBuffer(log, '0', '-1')).length).toBe(1);
  expect((await readExactLog(fx.client(), log)).map((r) => [r.at, r.admits])).toEqual([
    [10_000, 1],
    [10_100, 2],
    [10_200, 1],
    [10_250, 1],
  ]);

  // 11,150: the runs at 10,000 and 10,100 have aged out; the log held that one member alone
  const r = await both(2, [], 11_150);
  expect(r.count).toBe(2);
  const runs = await readExactLog(fx.client(), log);
  expect(runs.map((x) => [x.at, x.admits])).toEqual([
    [10_200, 1],
    [10_250, 1],
  ]);
  expect(new Set(runs.map((x) => x.id.split('@')[0])).size).toBe(1);
  expect(await fx.client().pttl(log)).toBeGreaterThan(0);

  // a second touch's member beside what is left of the first; then both age out in parts
  await both(3, [11_100, 11_180], 11_180);
  expect((await fx.client().zrangeBuffer(log, '0', '-1')).length).toBe(2);
  expect((await both(4, [], 11_220)).count).toBe(3);
  expect((await both(5, [], 12_150)).count).toBe(1);
  expect((await both(6, [], 13_000)).count).toBe(0);
});
