import calculateSlot from 'cluster-key-slot';
import type { Policy } from '../../src/config.js';
import type { SyncEntry } from '../../src/store/contract.js';
import type { RedisStore } from '../../src/store/redis/index.js';
import type { ClusterNodes } from './cluster-nodes.js';

/**
 * `count` keys named `<name>-<i>`, each in a slot of its own, all served by one node (`a`, the
 * first key's), so one sync of them is a script call that carries several slots; `b` is another
 * node, to migrate a slot to. `sync(admits)` pushes that many admits for every key (read back),
 * one gateway, its seq rising call by call.
 */
export function keysOnOneNode(
  fx: ClusterNodes,
  store: RedisStore,
  policy: Policy,
  name: string,
  count: number,
) {
  const slotOf = (k: string) => calculateSlot(store.keyNames(k, policy).meta);
  const ownerOf = (slot: number) => fx.nodes.find((n) => n.addr === fx.client.slots[slot][0])!;
  const a = ownerOf(slotOf(`${name}-0`));
  const b = fx.nodes.find((n) => n !== a)!;
  const keys: string[] = [];
  const used = new Set<number>();
  for (let i = 0; keys.length < count; i++) {
    const k = `${name}-${i}`;
    const s = slotOf(k);
    if (ownerOf(s) === a && !used.has(s)) {
      used.add(s);
      keys.push(k);
    }
  }
  let seq = 0;
  const sync = (admits: number) => {
    const now = Date.now();
    const entries: SyncEntry[] = keys.map((key) => ({
      key,
      admits: Array.from({ length: admits }, (_, j) => now - j),
      read: true,
      release: false,
      ask: 0,
    }));
    return store.sync(
      { gatewayId: 'gw-1', seq: ++seq, policy, leaseTtlMs: 3000, horizonMs: 0, entries },
      now,
    );
  };
  return { slotOf, a, b, keys, sync };
}
