import { describe, expect, it } from 'vitest';
import type { Policy } from '../../src/config.js';
import { RedisStore } from '../../src/store/redis/index.js';
import { infoSum } from '../support/cluster-fleet.js';
import { useClusterNodes } from '../support/cluster-nodes.js';
import { keysOnOneNode } from '../support/one-node-keys.js';

/**
 * Issue 35: a cluster sync call carrying several calls (dispatch.lua's merge) checks its carried
 * keys with sync.lua's own first reads, before it writes anything, where an EXISTS of every carried
 * name did it before. Redis checks only the declared keys, the first carried call's. Here a key of a
 * later carried call sits in a slot mid-migration with part of it moved: exact mode, its log moved
 * and its meta hash not (the plain path's read of the log, made early, must see it); compact mode,
 * its one hash moved. The call is refused whole (NONLOCAL), its calls go one by one, the migration
 * ends meanwhile, and every key counts exactly the admits pushed to it.
 */

const policy: Policy = { limit: 1_000_000_000, windowMs: 60_000, windowKind: 'sliding' };

const fx = useClusterNodes({ clientTimeoutMs: 5000 });

describe('a carried key half moved under a merged sync call', () => {
  for (const mode of ['exact', 'buckets'] as const) {
    it(`${mode}: the call runs whole or not at all`, async () => {
      const store = new RedisStore(fx.client, { prefix: `carry-${mode}:`, mode });
      const { slotOf, a, b, keys, sync } = keysOnOneNode(fx, store, policy, mode, 30);
      const calls0 = await infoSum([a.conn], 'cmdstat_evalsha', 'calls');
      expect((await sync(3)).replies.map((r) => r.count)).toEqual(keys.map(() => 3));
      expect(await infoSum([a.conn], 'cmdstat_evalsha', 'calls')).toBe(calls0 + 1);

      // a carried key's slot (one holding no other test's keys) migrates to b: exact mode moves its
      // log only, compact mode its hash
      const held = mode === 'exact' ? 2 : 1;
      let x = 15;
      while (Number(await a.conn.cluster('COUNTKEYSINSLOT', slotOf(keys[x]))) !== held) x++;
      const names = store.keyNames(keys[x], policy);
      const slot = slotOf(keys[x]);
      await b.conn.cluster('SETSLOT', slot, 'IMPORTING', a.id);
      await a.conn.cluster('SETSLOT', slot, 'MIGRATING', b.id);
      const first = mode === 'exact' ? [names.log] : [names.meta];
      await a.conn.migrate(b.server.host, b.server.port, '', 0, 5000, 'KEYS', ...first);

      const refused0 = await infoSum([a.conn], 'errorstat_NONLOCAL', 'count');
      const pending = sync(2);
      // the call alone meets TRYAGAIN (exact) or ASK until the slot has moved: end it meanwhile
      await new Promise((r) => setTimeout(r, 150));
      if (mode === 'exact') {
        await a.conn.migrate(b.server.host, b.server.port, '', 0, 5000, 'KEYS', names.meta);
      }
      for (const n of [b, a, ...fx.nodes.filter((x) => x !== a && x !== b)]) {
        await n.conn.cluster('SETSLOT', slot, 'NODE', b.id);
      }
      const r2 = await pending;
      expect(r2.replies.map((r) => r.count)).toEqual(keys.map(() => 5));
      // not vacuous: the carrying call was refused whole
      expect(await infoSum([a.conn], 'errorstat_NONLOCAL', 'count')).toBeGreaterThan(refused0);

      const r3 = await sync(0);
      expect(r3.replies.map((r) => r.count)).toEqual(keys.map(() => 5));
      const moved = mode === 'exact' ? [names.log, names.meta] : [names.meta];
      expect(await b.conn.exists(...moved)).toBe(moved.length);
    });
  }
});
