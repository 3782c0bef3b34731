import { describe, expect, it } from 'vitest';
import type { Decision } from '../../src/gateway/decision.js';
import { RedisStore } from '../../src/store/redis/index.js';
import { expressPairOnRedis } from '../support/express-pair.js';

/**
 * test/http/reset-key.live.test.ts's leases-ask case, on test/support/express-pair.ts, counted 3
 * admits left after resetKey (expected 0) in two CI runs beside a busy loop. The first gateway's first
 * sync on a fresh redis-server waits for Redis to compile every script, so half that round trip
 * (17–40 ms on a loaded 2-core box) put its clock ahead of Redis's; its decision time stood still
 * there (docs/decisions/0007) while later replies corrected the offset (so `offsetMs` looked right),
 * and its 3 admits were stamped in that lead. The reset landed at Redis's now, before those stamps,
 * and keeps admits stamped after it (0014: it errs towards counting): they outlived it. The fixture
 * now returns gateways whose clocks are caught up with Redis's. Here the first sync is made slow on
 * purpose (150 ms before it reaches Redis), so the lead is there every run.
 *
 * Seen failing with the fixture's `await clockCaughtUp(gw, admin)` removed: 3 admits counted after the
 * reset, not 0.
 */

const pair = expressPairOnRedis();
const KEY = 'ip:10.0.0.7';

describe('regression: a gateway clock left ahead by a slow first sync keeps its admits past a reset', () => {
  it('leases-ask, first sync 150 ms slow: resetKey on gateway 0 leaves Redis counting 0', async () => {
    const sync = RedisStore.prototype.sync;
    let slow = true;
    RedisStore.prototype.sync = async function (this: RedisStore, req, now) {
      if (slow) {
        slow = false;
        await new Promise((r) => setTimeout(r, 150));
      }
      return sync.call(this, req, now);
    };
    let fleet: Awaited<ReturnType<typeof pair.fleet>>;
    try {
      fleet = await pair.fleet('leases-ask', 5, 'slow-first');
    } finally {
      RedisStore.prototype.sync = sync;
    }
    const { gws, store } = fleet;
    expect(slow).toBe(false);
    const admit = async (i: number): Promise<Decision> => gws[i].admitNow(KEY);
    const allowed: boolean[] = [];
    for (let i = 0; i < 5; i++) allowed.push((await admit(i % 2)).allowed);
    expect(allowed).toEqual(Array(5).fill(true));
    for (const gw of gws) await gw.syncNow();
    expect(await pair.counted(store, gws[0], KEY)).toBe(5);
    const reset = gws[0].resetKey(KEY);
    await gws[0].syncNow();
    expect(await reset).toBe(true);
    expect(await pair.counted(store, gws[0], KEY)).toBe(0);
  });
});
