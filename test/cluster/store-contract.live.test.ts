import calculateSlot from 'cluster-key-slot';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DESIGN_IDS, type Policy } from '../../src/config.js';
import { MemoryStore } from '../../src/store/memory-store.js';
import { seeded } from '../support/fc-seed.js';
import { type DriverEvent, driveFleet } from '../support/redis-driver.js';
import { type ClusterFixture, localCluster } from '../support/redis-fixtures.js';
import { storeContract } from '../support/store-contract.js';

let fx: ClusterFixture;
beforeAll(async () => {
  fx = await localCluster();
});
afterAll(async () => {
  await fx?.close();
});

storeContract('RedisStore, 3-master cluster, exact', () => fx.store({ clock: 'caller', chunkKeys: 64 }));
storeContract('RedisStore, 3-master cluster, one key per script call', () =>
  fx.store({ clock: 'caller', chunkKeys: 1 }),
);
// decision 0011: the default puts keys in 256 groups; a hash tag per key as before, and 3 groups
// (a group's keys of a sync cut by chunkKeys into several calls)
storeContract('RedisStore, 3-master cluster, a hash tag per key', () =>
  fx.store({ clock: 'caller', keyGroups: 'per-key' }),
);
storeContract('RedisStore, 3-master cluster, 3 key groups', () =>
  fx.store({ clock: 'caller', keyGroups: 3, chunkKeys: 8 }),
);

describe('RedisStore on the cluster', () => {
  const policy: Policy = { limit: 100, windowMs: 60_000, windowKind: 'sliding' };

  it('a sync of keys on every node is answered in request order, on the store clock', async () => {
    const store = fx.store();
    const keys = Array.from({ length: 300 }, (_, i) => `user:${i}`);
    const nodes = new Set(
      keys.map((k) => fx.client.slots[calculateSlot(store.keyNames(k, policy).tag)]?.[0]),
    );
    expect(nodes.size).toBe(3);
    const before = Date.now();
    const r = await store.sync(
      {
        gatewayId: 'g',
        seq: 1,
        policy,
        leaseTtlMs: 1000,
        horizonMs: 100,
        entries: keys.map((key, i) => ({
          key,
          admits: Array(i % 5).fill(before),
          read: true,
          release: false,
          ask: 0,
        })),
      },
      0,
    );
    expect(r.now).toBeGreaterThanOrEqual(before - 1000);
    expect(r.replies.map((x) => x.count)).toEqual(keys.map((_, i) => i % 5));
  });

  it('every node losing its script cache (SCRIPT FLUSH) between syncs is survived', async () => {
    const store = fx.store({ clock: 'caller', chunkKeys: 10 });
    const keys = Array.from({ length: 60 }, (_, i) => `f${i}`);
    const sync = (seq: number, now: number) =>
      store.sync(
        {
          gatewayId: 'g',
          seq,
          policy,
          leaseTtlMs: 1000,
          horizonMs: 10,
          entries: keys.map((key) => ({ key, admits: [now], read: true, release: false, ask: 0 })),
        },
        now,
      );
    await sync(1, 1);
    await Promise.all(fx.client.nodes('master').map((n) => n.script('FLUSH')));
    const r = await sync(2, 2);
    expect(r.replies.every((x) => x.count === 2)).toBe(true);
  });

  it('a key whose slot moved to another node is followed (MOVED) and keeps its records', async () => {
    const store = fx.store({ clock: 'caller' });
    const key = 'migrating';
    await store.logAdmit({ key, policy, cost: 3 }, 0);
    const names = store.keyNames(key, policy);
    const slot = calculateSlot(names.tag);
    const nodes = fx.cluster.nodes;
    const ids = await Promise.all(
      nodes.map(async (n) => {
        const c = fx.client.nodes('master').find((m) => m.options.port === n.port)!;
        return { n, c, id: (await c.cluster('MYID')) as string };
      }),
    );
    const ownerKey = fx.client.slots[slot][0];
    const src = ids.find((x) => `${x.n.host}:${x.n.port}` === ownerKey)!;
    const dst = ids.find((x) => x !== src)!;
    await dst.c.cluster('SETSLOT', slot, 'IMPORTING', src.id);
    await src.c.cluster('SETSLOT', slot, 'MIGRATING', dst.id);
    // every key of the slot: with key groups (decision 0011) it holds other keys' records too
    for (let keys: string[]; (keys = await src.c.cluster('GETKEYSINSLOT', slot, 100)).length > 0; )
      await src.c.migrate(dst.n.host, dst.n.port, '', 0, 5000, 'KEYS', ...keys);
    for (const x of ids) await x.c.cluster('SETSLOT', slot, 'NODE', dst.id);
    // the pipelined path first: its slot map is stale, so the call comes back MOVED
    const s = await store.sync(
      {
        gatewayId: 'g',
        seq: 1,
        policy,
        leaseTtlMs: 1000,
        horizonMs: 10,
        entries: [{ key, admits: [1], read: true, release: false, ask: 0 }],
      },
      2,
    );
    expect(s.replies[0].count).toBe(4);
    const r = await store.logAdmit({ key, policy, cost: 1 }, 3);
    expect(r).toMatchObject({ allowed: true, count: 5 });
  });
});

describe('on the cluster, every design decides as on MemoryStore', () => {
  const keys = Array.from({ length: 12 }, (_, i) => `k${i}`);
  for (const design of DESIGN_IDS) {
    it(design, async () => {
      await fc.assert(
        fc.asyncProperty(
          fc.integer({ min: 1, max: 6 }),
          fc.array(
            fc.record({
              t: fc.integer({ min: 0, max: 8000 }).map((q) => q / 4),
              gw: fc.nat(2),
              key: fc.constantFrom(...keys),
            }),
            { minLength: 20, maxLength: 60 },
          ),
          async (limit, reqs) => {
            const base = { design, limit, windowMs: 500, gateways: 3, syncMs: 100 };
            const events: DriverEvent[] = [];
            for (let g = 0; g < 3; g++)
              for (let t = g * 30; t < 2000; t += 100) events.push({ t, gw: g, key: '', kind: 'sync' });
            for (const r of reqs) events.push({ ...r, kind: 'req' });
            events.sort((a, b) => a.t - b.t || (a.kind === b.kind ? 0 : a.kind === 'sync' ? -1 : 1));
            const want = await driveFleet(base, new MemoryStore(), events);
            const got = await driveFleet(
              base,
              fx.store({ clock: 'caller', expiryMarginMs: 600_000 }),
              events,
            );
            expect(got.decisions).toEqual(want.decisions);
            expect(got.replies).toEqual(want.replies);
          },
        ),
        // 10 cases per design (was 5): each is a few hundred store calls on the local cluster
        seeded({ numRuns: 10 }),
      );
    });
  }
});
