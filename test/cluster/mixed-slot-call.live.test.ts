import { describe, expect, it } from 'vitest';
import type { Policy } from '../../src/config.js';
import { RedisStore } from '../../src/store/redis/index.js';
import { infoSum } from '../support/cluster-fleet.js';
import { useClusterNodes } from '../support/cluster-nodes.js';
import { keysOnOneNode } from '../support/one-node-keys.js';

/**
 * Issue 19, cluster throughput: a sync's keys of one node travel several slots to a script call
 * (src/store/redis/script.ts, composeScript). Such a call declares the keys of one slot only, so
 * Redis's own check (MOVED, ASK, TRYAGAIN) covers that slot alone; the call checks the others itself
 * before writing anything. Here two of the node's slots are mid-migration: the first carried slot's
 * records moved to the target already (the call meets ASK, the client follows it to the target,
 * which holds none of the other slots), another's still on the source. The call is refused whole
 * (NONLOCAL), its calls are sent one by one, and every key counts exactly the admits pushed to it:
 * none lost, none twice.
 */

const policy: Policy = { limit: 1_000_000_000, windowMs: 60_000, windowKind: 'sliding' };

const fx = useClusterNodes({ clientTimeoutMs: 2000 });

describe('a mixed-slot sync call meets slots mid-migration', () => {
  it('runs whole or not at all: nothing lost, nothing counted twice', async () => {
    const store = new RedisStore(fx.client, { prefix: 'mix:' });
    const { slotOf, a, b, keys, sync } = keysOnOneNode(fx, store, policy, 'k', 40);
    const all = fx.nodes.map((n) => n.conn);

    // 3 admits per key: the node's 40 slots take one script call
    const calls0 = await infoSum([a.conn], 'cmdstat_evalsha', 'calls');
    const r1 = await sync(3);
    expect(r1.replies.map((r) => r.count)).toEqual(keys.map(() => 3));
    expect(await infoSum([a.conn], 'cmdstat_evalsha', 'calls')).toBe(calls0 + 1);

    // two slots migrate to b: the first key's records moved already, the 21st key's not yet
    const [gone, stays] = [keys[0], keys[20]].map((k) => ({
      slot: slotOf(k),
      names: store.keyNames(k, policy),
    }));
    for (const m of [gone, stays]) {
      await b.conn.cluster('SETSLOT', m.slot, 'IMPORTING', a.id);
      await a.conn.cluster('SETSLOT', m.slot, 'MIGRATING', b.id);
    }
    await a.conn.migrate(b.server.host, b.server.port, '', 0, 5000, 'KEYS', gone.names.log, gone.names.meta);

    const refused0 = await infoSum(all, 'errorstat_NONLOCAL', 'count');
    const ask0 = await infoSum(all, 'errorstat_ASK', 'count');
    const r2 = await sync(2);
    expect(r2.replies.map((r) => r.count)).toEqual(keys.map(() => 5));
    // not vacuous: the call met ASK, was refused whole, and its calls were resent one by one
    expect(await infoSum(all, 'errorstat_ASK', 'count')).toBeGreaterThan(ask0);
    expect(await infoSum(all, 'errorstat_NONLOCAL', 'count')).toBeGreaterThan(refused0);

    // the migrations end; a read finds every count, and the moved records on b
    await a.conn.migrate(
      b.server.host,
      b.server.port,
      '',
      0,
      5000,
      'KEYS',
      stays.names.log,
      stays.names.meta,
    );
    for (const m of [gone, stays])
      for (const n of [b, a, ...fx.nodes.filter((x) => x !== a && x !== b)]) {
        await n.conn.cluster('SETSLOT', m.slot, 'NODE', b.id);
      }
    const r3 = await sync(0);
    expect(r3.replies.map((r) => r.count)).toEqual(keys.map(() => 5));
    for (const m of [gone, stays]) expect(await b.conn.exists(m.names.log, m.names.meta)).toBe(2);
  });
});
