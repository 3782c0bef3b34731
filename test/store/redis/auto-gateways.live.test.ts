import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AsyncGateway, createAsyncGateway } from '../../../src/gateway/runtime/async-gateway.js';
import { RedisStore } from '../../../src/store/redis/index.js';
import { type SingleFixture, singleServer, uniquePrefix } from '../../support/redis-fixtures.js';

let fx: SingleFixture;
beforeAll(async () => {
  fx = await singleServer();
});
afterAll(async () => {
  await fx?.close();
});

const D = 50;

/** Polls until `f` holds, at most `ms` (a bound on the test, not a timing it asserts). */
async function until(f: () => boolean, ms = 10_000): Promise<void> {
  const end = Date.now() + ms;
  while (!f()) {
    if (Date.now() > end) throw new Error('condition not reached');
    await new Promise((r) => setTimeout(r, 10));
  }
}

describe("gateways 'auto' on Redis: K follows gateways joining, stopping and crashing", () => {
  it('every gateway counts the live fleet, each on its own connection', async () => {
    const prefix = uniquePrefix();
    const fleet: { gw: AsyncGateway; client: Redis }[] = [];
    const join = () => {
      const client = fx.client();
      const gw = createAsyncGateway({
        id: `gw-${fleet.length}`,
        design: 'assume-others',
        limit: 100,
        windowMs: 10_000,
        gateways: 'auto',
        syncMs: D,
        storeTimeoutMs: 100,
        store: new RedisStore(client, { prefix }),
      });
      gw.start();
      fleet.push({ gw, client });
      return gw;
    };
    const running = () => fleet.filter((m) => m.gw.running);
    const allSee = (k: number) => running().every((m) => m.gw.stats().gateways === k);
    try {
      for (let i = 0; i < 3; i++) join();
      await until(() => allSee(3));
      // a decision goes through on the counted K
      expect((await fleet[0].gw.admitNow('k')).allowed).toBe(true);
      const late = join();
      await until(() => allSee(4));
      expect(late.stats().gateways).toBe(4);
      // stop(): out of the count at once, the others see it at their next sync
      await fleet[1].gw.stop();
      await until(() => allSee(3));
      // a crash (its connection gone): counted until 3Δ + storeTimeoutMs after its last beat
      fleet[2].client.disconnect();
      const survivors = () => fleet.filter((_, i) => i === 0 || i === 3);
      await until(() => survivors().every((m) => m.gw.stats().gateways === 2));
      expect(fleet[2].gw.stats().heartbeatFailures).toBeGreaterThan(0);
    } finally {
      for (const m of fleet) await m.gw.stop();
    }
  }, 30_000);
});
