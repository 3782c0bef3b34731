import { describe, it } from 'vitest';
import type { Policy } from '../../../src/config.js';
import { type SingleFixture, singleServer } from '../../support/redis-fixtures.js';

/**
 * Not a test: the measurement behind RedisStore's default chunk size, run on demand with
 *   FLEETLIMIT_BENCH=1 npx vitest run test/store/redis/chunk-size.live.test.ts
 * It syncs 1,000 keys (each already holding 20 admits) with 1 or 5 pushed admits and a read per key,
 * and prints Redis's own time per sync.lua call (INFO commandstats usec_per_call, best of 5).
 */
describe.runIf(process.env.FLEETLIMIT_BENCH === '1')('sync chunk size (measurement)', () => {
  it('prints Redis time per script call', async () => {
    const fx: SingleFixture = await singleServer();
    const c = fx.client();
    const policy: Policy = { limit: 1000, windowMs: 60_000, windowKind: 'sliding' };
    const keys = Array.from({ length: 1000 }, (_, i) => `user:${i}`);
    const entry = (key: string, t: number, n: number) => ({
      key,
      admits: Array<number>(n).fill(t),
      read: true,
      release: false,
      ask: 0,
    });
    for (const pushed of [1, 5]) {
      for (const chunkKeys of [50, 100, 200, 500, 1000]) {
        const store = fx.store({ chunkKeys, chunkAdmits: 1e9 });
        const base = { policy, leaseTtlMs: 1000, horizonMs: 4000 };
        const t0 = Date.now();
        await store.sync({ ...base, gatewayId: 'w', seq: 1, entries: keys.map((k) => entry(k, t0, 20)) }, 0);
        let best = Number.POSITIVE_INFINITY;
        for (let rep = 1; rep <= 5; rep++) {
          await c.config('RESETSTAT');
          const t = Date.now();
          await store.sync(
            { ...base, gatewayId: 'g', seq: rep, entries: keys.map((k) => entry(k, t, pushed)) },
            0,
          );
          const m = /cmdstat_evalsha:calls=\d+,usec=\d+,usec_per_call=([\d.]+)/.exec(
            await c.info('commandstats'),
          );
          best = Math.min(best, Number(m?.[1]));
        }
        console.log(
          `push ${pushed}/key + read, ${chunkKeys} keys/call: ${best.toFixed(0)} µs of Redis time per call (${(best / chunkKeys).toFixed(1)} µs/key)`,
        );
      }
    }
    await fx.close();
  });
});
