import type { Cluster } from 'ioredis';
import { expect } from 'vitest';
import type { DesignId, Policy } from '../../src/config.js';
import { RedisStore } from '../../src/store/redis/index.js';
import type { KeyNames } from '../../src/store/redis/key-names.js';
import {
  type ClusterFleet,
  clusterReady,
  keysOnEveryMaster,
  LogWatcher,
  startClusterFleet,
  tally,
  worstWindow,
} from './cluster-fleet.js';
import type { RedisClusterHandle } from './redis-cluster.js';

/**
 * Two fleets on one cluster, a counting design and a lease design, checked against the store's own
 * records: the frame the failover and slot-migration tests share (issue 19), each putting its own
 * disturbance between start and check.
 */

/** One fleet's design, key prefix and base of its key names. */
export interface FleetSpecOfTest {
  design: DesignId;
  prefix: string;
  base: string;
}

/** A fleet's keys (`perNode` on every master) and the Redis key names of each. */
export interface FleetPlan extends FleetSpecOfTest {
  keys: string[];
  names(key: string): KeyNames;
}

export function planFleets(
  probe: Cluster,
  policy: Policy,
  specs: readonly FleetSpecOfTest[],
  perNode: number,
): FleetPlan[] {
  return specs.map((s) => {
    const store = new RedisStore(probe, { prefix: s.prefix });
    const keys = keysOnEveryMaster(probe, (k) => store.keyNames(k, policy).log, s.base, perNode);
    return { ...s, keys, names: (k: string) => store.keyNames(k, policy) };
  });
}

/** A LogWatcher over every planned key's log, polling every `pollMs`. */
export async function watchPlans(
  cluster: RedisClusterHandle,
  plans: readonly FleetPlan[],
  pollMs: number,
): Promise<LogWatcher> {
  const logs = new Map<string, string>();
  for (const p of plans) for (const key of p.keys) logs.set(`${p.prefix}${key}`, p.names(key).log);
  const watcher = new LogWatcher(cluster, logs);
  await clusterReady(watcher.client);
  watcher.start(pollMs);
  return watcher;
}

/**
 * What both tests run each fleet with: K = 3 gateways, Δ = 50 ms, a 300 ms lease TTL and a 250 ms
 * store timeout (syncs fail fast enough to be resent within a disturbance of a few hundred ms).
 */
export const TWO_FLEETS = { k: 3, syncMs: 50, leaseTtlMs: 300, storeTimeoutMs: 250 } as const;

/** The settings both fleets run with. */
export interface FleetSettings {
  k: number;
  policy: Policy;
  syncMs: number;
  leaseTtlMs: number;
  storeTimeoutMs: number;
}

export function startPlannedFleets(
  cluster: RedisClusterHandle,
  plans: readonly FleetPlan[],
  s: FleetSettings,
): Promise<ClusterFleet[]> {
  return Promise.all(
    plans.map((p) => startClusterFleet(cluster, { design: p.design, prefix: p.prefix, keys: p.keys, ...s })),
  );
}

/**
 * The checks both tests make, soft so that every key's figures show: each gateway's last sync was
 * answered; per key, the store logged exactly the admits the gateways allowed (none lost, none
 * extra) and at least `admittedAtLeast.n` were allowed (`.why` says what that rules out); the lease
 * design never over L in a window, by either set of stamps. Logs each fleet's figures.
 */
export function checkAgainstStore(
  fleets: readonly ClusterFleet[],
  plans: readonly FleetPlan[],
  stored: Map<string, number[]>,
  stopped: readonly boolean[][],
  o: { k: number; limit: number; windowMs: number; admittedAtLeast: { n: number; why: string } },
): void {
  for (const [i, f] of fleets.entries()) {
    const p = plans[i];
    const allowed = new Map([...f.allowed].map(([k, v]) => [`${p.prefix}${k}`, v]));
    const rows = tally(allowed, stored);
    const worst = Math.max(...[...allowed.values()].map((a) => worstWindow(a, o.windowMs)));
    const worstStored = Math.max(
      ...p.keys.map((k) => worstWindow(stored.get(`${p.prefix}${k}`)!, o.windowMs)),
    );
    console.log(
      `${p.design}: ${f.requests} requests, ${rows.reduce((n, r) => n + r.admitted, 0)} admitted, ` +
        `${rows.reduce((n, r) => n + r.stored, 0)} in the store; worst window ${worst} by the decisions, ` +
        `${worstStored} by the store (L = ${o.limit}); ${f.syncErrors} sync errors [${f.syncErrorNotes.join('; ')}], ${f.degraded} degraded; ` +
        `per key admitted/stored/lost/extra: ${rows.map((r) => `${r.admitted}/${r.stored}/${r.lost}/${r.extra}`).join(' ')}`,
    );
    expect.soft(stopped[i], `${p.design}: every gateway's last sync answered`).toEqual(Array(o.k).fill(true));
    for (const r of rows) {
      expect.soft(r.lost, `${p.design} ${r.key}: admits the store never got`).toBe(0);
      expect.soft(r.extra, `${p.design} ${r.key}: stored admits no gateway made (or counted twice)`).toBe(0);
      expect
        .soft(r.admitted, `${p.design} ${r.key}: ${o.admittedAtLeast.why}`)
        .toBeGreaterThanOrEqual(o.admittedAtLeast.n);
    }
    if (p.design === 'leases') {
      expect.soft(worst, 'leases: worst window by the decisions').toBeLessThanOrEqual(o.limit);
      expect.soft(worstStored, "leases: worst window in the store's log").toBeLessThanOrEqual(o.limit);
    }
  }
}
