import calculateSlot from 'cluster-key-slot';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Policy } from '../../src/config.js';
import { SLICE_MS, setSliceBudgetMs } from '../../src/util/slicer.js';
import { type NodeConn, nodeConns } from '../support/cluster-fleet.js';
import { type ClusterFixture, localCluster } from '../support/redis-fixtures.js';

// Issue 19 (Redis Cluster): a large sync is built and written in slices (Slicer), one pipeline per
// node, grouped by the client's slot map when the build starts. If the map was refreshed meanwhile
// (a MOVED elsewhere, another call's redirect: what a reshard or failover does to a busy client),
// ioredis refused the node's pipeline at exec ("All keys in the pipeline should belong to the same
// slots allocation group"), before writing any of it, and the whole sync failed: every sync built
// across a refresh was a sync error, its keys' admits late by a Δ, for as long as a reshard ran.
// Nothing was sent, so the calls are resent on their own, like a MOVED reply.

let fx: ClusterFixture;
let nodes: NodeConn[];
beforeAll(async () => {
  fx = await localCluster();
  nodes = await nodeConns(fx.cluster);
});
afterAll(async () => {
  for (const n of nodes ?? []) n.conn.disconnect();
  await fx?.close();
});
afterEach(() => setSliceBudgetMs(SLICE_MS));

const policy: Policy = { limit: 100, windowMs: 60_000, windowKind: 'sliding' };

describe('a sync built across a slot-map refresh', () => {
  it('lands whole, every key counted once', async () => {
    const store = fx.store({ clock: 'caller', chunkKeys: 1 });
    const keys = Array.from({ length: 1500 }, (_, i) => `k${i}`);
    // the first key's slot moves to another master behind the client's back: its map is stale
    const names = store.keyNames(keys[0], policy);
    const slot = calculateSlot(names.log);
    await fx.client.set(names.log.replace('}l[', '}x['), '1'); // the map loaded, the slot non-empty
    const src = nodes.find((n) => n.addr === fx.client.slots[slot][0])!;
    const dst = nodes.find((n) => n !== src)!;
    await dst.conn.cluster('SETSLOT', slot, 'IMPORTING', src.id);
    await src.conn.cluster('SETSLOT', slot, 'MIGRATING', dst.id);
    await src.conn.migrate(
      dst.server.host,
      dst.server.port,
      '',
      0,
      5000,
      'KEYS',
      names.log.replace('}l[', '}x['),
    );
    for (const n of nodes) await n.conn.cluster('SETSLOT', slot, 'NODE', dst.id);
    // every sliced loop pauses at each check; the client refreshes its map while the sync is built
    setSliceBudgetMs(0);
    const client = fx.client;
    const pipeline = client.pipeline.bind(client);
    let refreshed = false;
    client.pipeline = ((...a: Parameters<typeof pipeline>) => {
      if (!refreshed) {
        refreshed = true;
        client.refreshSlotsCache();
      }
      return pipeline(...a);
    }) as typeof client.pipeline;
    try {
      const r = await store.sync(
        {
          gatewayId: 'g',
          seq: 1,
          policy,
          leaseTtlMs: 1000,
          horizonMs: 10,
          entries: keys.map((key) => ({ key, admits: [1], read: true, release: false, ask: 0 })),
        },
        2,
      );
      expect(r.replies.every((x) => x.count === 1)).toBe(true);
    } finally {
      client.pipeline = pipeline as typeof client.pipeline;
    }
    expect(refreshed).toBe(true);
    expect(fx.client.slots[slot][0]).toBe(dst.addr);
  });
});
