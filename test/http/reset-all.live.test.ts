// express-rate-limit's store.resetAll on a two-instance Express fleet on one redis-server (issue 36):
// FleetlimitStore with each exact design (leases-ask, central-log, leases). Keys both instances
// refused, and one only instance 1 ever saw; store.resetAll() on instance 0 resets the keys it holds
// in its next sync round and the store's others by a scan through the instant of the call. Instance 1
// admits both keys again by its next sync, instance 0 the key it held; Redis then counts only the
// admits made after the reset.
import express from 'express';
import { rateLimit } from 'express-rate-limit';
import { describe, expect, it } from 'vitest';
import type { DesignId } from '../../src/config.js';
import { FleetlimitStore } from '../../src/http/index.js';
import { expressPairOnRedis } from '../support/express-pair.js';

const pair = expressPairOnRedis();
const fleet = (design: DesignId) => pair.fleet(design, 4, 'api');
const counted = pair.counted;

async function instance(store: FleetlimitStore): Promise<string> {
  const app = express();
  app.use(rateLimit({ windowMs: 60_000, limit: 4, keyGenerator: (req) => String(req.query.key), store }));
  app.get('/', (_req, res) => {
    res.send('ok');
  });
  return pair.serve(app);
}

const get = async (url: string, key: string) => (await fetch(`${url}/?key=${key}`)).status;

describe('express-rate-limit store.resetAll, two Express instances with FleetlimitStore on one redis-server', () => {
  for (const design of ['leases-ask', 'central-log', 'leases'] as const) {
    it(`${design}: keys both refused are admitted on both by their next sync after resetAll on one`, async () => {
      const { gws, store } = await fleet(design);
      const stores = gws.map((gw) => new FleetlimitStore(gw));
      const urls = await Promise.all(stores.map(instance));
      // "shared": requests on both instances; "far": only on instance 1, which instance 0 never holds
      for (const key of ['shared', 'far']) {
        const on = key === 'shared' ? [0, 1] : [1];
        let admitted = 0;
        for (let i = 0; i < 12 && admitted < 4; i++) {
          const s = await get(urls[on[i % on.length]], key);
          if (s === 200) admitted++;
          // leases: a gateway out of its grant asks at its next sync
          else for (const gw of gws) await gw.syncNow();
        }
        expect(admitted, key).toBe(4);
      }
      for (const gw of gws) await gw.syncNow();
      for (const key of ['shared', 'far']) {
        expect(await counted(store, gws[0], key), key).toBe(4);
        for (const url of key === 'shared' ? urls : [urls[1]]) expect(await get(url, key), key).toBe(429);
      }
      // instance 0 never saw "far": the store's scan resets it
      expect(gws[0].limiterFor('far')).toBeUndefined();

      // the admin's reset, on instance 0: the keys it holds go in its next sync round (run now, as a
      // timer would), the store's others by the scan; it resolves once both are through
      const reset = stores[0].resetAll();
      await gws[0].syncNow();
      await reset;
      for (const key of ['shared', 'far']) expect(await counted(store, gws[0], key), key).toBe(0);
      // instance 1 from its next sync
      await gws[1].syncNow();
      // (a lease design's instance 0 would first need a grant for "far", which it never held)
      for (const url of urls) expect(await get(url, 'shared'), url).toBe(200);
      expect(await get(urls[1], 'far')).toBe(200);
      for (const gw of gws) await gw.syncNow();
      expect(await counted(store, gws[0], 'shared')).toBe(2);
      expect(await counted(store, gws[0], 'far')).toBe(1);
    });
  }
});
