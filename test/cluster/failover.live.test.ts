import calculateSlot from 'cluster-key-slot';
import { describe, expect, it } from 'vitest';
import type { DesignId, Policy } from '../../src/config.js';
import { composeScript } from '../../src/store/redis/script.js';
import {
  clusterReady,
  gatewayCluster,
  infoSum,
  lagMonitor,
  type NodeConn,
  sleep,
  watchDown,
} from '../support/cluster-fleet.js';
import { useClusterNodes } from '../support/cluster-nodes.js';
import {
  checkAgainstStore,
  planFleets,
  startPlannedFleets,
  TWO_FLEETS,
  watchPlans,
} from '../support/cluster-two-fleets.js';

/**
 * Issue 19, "Redis Cluster": a master fails over under load, twice — first a coordinated
 * `CLUSTER FAILOVER` on its replica (the master pauses its clients until the replica has every write,
 * then the replica takes the slots), then the new master is killed (SIGKILL) and its replica, the old
 * master, takes the slots with `CLUSTER FAILOVER TAKEOVER`. A replica never ran SCRIPT LOAD (Redis 7
 * does not replicate the script cache, and the gateways' Cluster clients connect to masters only), so
 * each promoted node starts with an empty script cache: the first EVALSHA it gets is NOSCRIPT.
 *
 * Two fleets of K gateways (a counting design and a lease design) admit on keys spread over the three
 * masters. Checked by the store's own records (its sorted sets, read every POLL_MS; W > the longest
 * outage, so no run ages out unseen): every key's logged stamps equal the stamps of the decisions the gateways
 * allowed, none lost and none counted twice; the lease design never over L in any window; and every
 * gateway is back from store-down within RECOVERY_BOUND_MS of the takeover (derived below).
 *
 * The takeover after a kill keeps the counts exact here because on loopback the replica has every
 * write its master acknowledged by the time the master dies. Redis replicates asynchronously: with
 * real replication lag, the writes of the last moments before a crash are lost with the master (the
 * store cannot see that without WAIT), and a lease design may then grant them again.
 */

const K = TWO_FLEETS.k;
const L = 40;
/**
 * Longer than any outage here, so no admit ages out before its push lands and the store's log can be
 * checked against the decisions: a coordinated failover that lapses pauses the master's writes for up
 * to Redis's CLUSTER_MF_TIMEOUT (5 s), and every gateway is store-down meanwhile. With W = 3 s a lapse
 * (seen in a CI run under load) let ~100 degraded admits per key age out unpushed, as they should,
 * and the watcher counted them lost (reproduced with CLIENT PAUSE 5000 WRITE on the master).
 */
const W = 10_000;
const SYNC = TWO_FLEETS.syncMs;
const TIMEOUT = TWO_FLEETS.storeTimeoutMs;
const RATE = 400;
const POLL_MS = 150;
const PER_NODE = 2;
/** Load before, between and after the two failovers. */
const PHASE_MS = 1200;
/** How long the killed master is left dead before the takeover: past staleAfterMs, so gateways are store-down. */
const DEAD_MS = 800;
/** How much longer the takeover waits for a gateway that has not gone store-down yet (a loaded machine). */
const DOWN_WAIT_MS = 5_000;

const fx = useClusterNodes({ replicas: 1 });

async function role(n: NodeConn): Promise<string> {
  return /role:(\w+)/.exec(await n.conn.info('replication'))?.[1] ?? '?';
}

/** The replica of master `m`, by each node's own view of itself (CLUSTER NODES, the `myself` line). */
async function replicaOf(m: NodeConn): Promise<NodeConn> {
  for (const n of fx.nodes) {
    const lines = ((await n.conn.cluster('NODES')) as string).split('\n');
    const self = lines.find((l) => l.split(' ')[2]?.includes('myself'))?.split(' ');
    if (self?.[2].includes('slave') && self[3] === m.id) return n;
  }
  throw new Error(`no replica of ${m.addr}`);
}

/** Waits until the replica's link to its master is up and its initial sync is over. */
async function waitReplicaInSync(n: NodeConn, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const info = await n.conn.info('replication');
    if (/master_link_status:up/.test(info) && /master_sync_in_progress:0/.test(info)) return;
    if (Date.now() > deadline) throw new Error(`${n.addr}: replication link not up in ${timeoutMs} ms`);
    await sleep(20);
  }
}

/** Waits until `n` is a master that every live master agrees owns slots (cluster_state:ok on each). */
async function waitPromoted(n: NodeConn, live: NodeConn[], timeoutMs = 10_000): Promise<number> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if ((await role(n)) === 'master') {
      const ok = await Promise.all(
        live.map(async (x) => /cluster_state:ok/.test((await x.conn.cluster('INFO')) as string)),
      );
      if (ok.every(Boolean)) return Date.now();
    }
    if (Date.now() > deadline) throw new Error(`${n.addr} was not promoted`);
    await sleep(5);
  }
}

describe('a failover of one master (issue 19)', () => {
  it('scripts reloaded on the promoted node, counts exact, leases never over L, store-down recovered', async () => {
    const probe = await clusterReady(gatewayCluster(fx.cluster, TIMEOUT));
    const policy: Policy = { limit: L, windowMs: W, windowKind: 'sliding' };
    const specs: { design: DesignId; prefix: string; base: string }[] = [
      { design: 'shared-counter', prefix: 'fo-sc:', base: 'sc-' },
      { design: 'leases', prefix: 'fo-ls:', base: 'ls-' },
    ];
    const plans = planFleets(probe, policy, specs, PER_NODE);
    // the master that fails over: the one holding the first key
    const firstSlotOwner = probe.slots[calculateSlot(plans[0].names(plans[0].keys[0]).log)][0];
    probe.disconnect();
    const master = fx.nodes.find((n) => n.addr === firstSlotOwner)!;
    const replica = await replicaOf(master);
    const others = fx.nodes.filter((n) => n !== master && n !== replica);

    const watcher = await watchPlans(fx.cluster, plans, POLL_MS);
    const fleets = await startPlannedFleets(fx.cluster, plans, { ...TWO_FLEETS, policy });
    const downs = fleets.map((f) => watchDown(f));
    const lag = lagMonitor();
    const staleAfterMs = fleets[0].gws[0].staleAfterMs;
    let driving = true;
    const driven = Promise.all(
      fleets.map((f, i) => f.drive(RATE, 4 * PHASE_MS + DEAD_MS + 3000 + 40_000, 7 + i, () => !driving)),
    );

    // 1. a coordinated failover: the replica takes the master's slots with every write it acked
    await sleep(PHASE_MS);
    const noscript0 = await infoSum([replica.conn], 'errorstat_NOSCRIPT', 'count');
    const coldCache = (await replica.conn.script('EXISTS', ...scriptShas())) as number[];
    const failoverAt = Date.now();
    // A coordinated failover only completes once the replica can reach the master's offset: with its
    // replication link down (still syncing after the cluster formed) Redis drops it after a fixed 5 s.
    // FORCE is no substitute: it skips that handshake and loses acknowledged writes, so the counts
    // could not be exact. Wait for the link, then retry the coordinated failover if it lapses. (The
    // lapses seen in npm test had a cause: the masters did not know the replica as one yet, so none
    // voted; startRedisCluster now waits until every node lists every replica.)
    const syncWaitStart = Date.now();
    await waitReplicaInSync(replica);
    console.log(`replica in sync after ${Date.now() - syncWaitStart} ms of waiting`);
    const voters = [replica, ...others.filter((n) => n !== replica)];
    // Up to three attempts: a fresh-clone CI run saw two lapse in a row before that wait existed;
    // before each retry the replica's link is waited for again, and what it reported is logged.
    let promoted1 = Number.NaN;
    for (let attempt = 1; Number.isNaN(promoted1); attempt++) {
      if (attempt > 1) await waitReplicaInSync(replica);
      await replica.conn.cluster('FAILOVER');
      promoted1 = await waitPromoted(replica, voters, attempt === 1 ? 8_000 : 20_000).catch(
        async (e: Error) => {
          const link = /master_link_status:\w+|master_repl_offset:\d+|slave_repl_offset:\d+/g;
          const repl = ((await replica.conn.info('replication')) as string).match(link)?.join(', ');
          console.log(`coordinated CLUSTER FAILOVER attempt ${attempt} did not complete (${repl}): again`);
          if (attempt === 3) throw e;
          return Number.NaN;
        },
      );
    }
    await sleep(PHASE_MS);
    const noscript1 = await infoSum([replica.conn], 'errorstat_NOSCRIPT', 'count');
    const evals1 = await infoSum([replica.conn], 'cmdstat_eval', 'calls');
    const loaded1 = (await replica.conn.script('EXISTS', ...scriptShas())) as number[];

    // 2. the new master dies; its replica (the old master) takes over once the gateways are store-down
    const killedAt = Date.now();
    await replica.server.kill9();
    await sleep(DEAD_MS);
    // under load a gateway's timers run late, and so does its going store-down: wait for it, within a
    // bound (a gateway that never goes store-down still fails below)
    const allDown = () => fleets.every((f) => f.gws.every((g) => g.stats().storeDown));
    for (let waited = 0; !allDown() && waited < DOWN_WAIT_MS; waited += 50) await sleep(50);
    const downBeforeTakeover = fleets.flatMap((f) => f.gws.map((g) => g.stats().storeDown));
    await master.conn.cluster('FAILOVER', 'TAKEOVER');
    const promoted2 = await waitPromoted(master, [master, ...others]);
    await sleep(PHASE_MS);
    const loaded2 = (await master.conn.script('EXISTS', ...scriptShas())) as number[];
    driving = false;
    await driven;
    for (const d of downs) d.stop();
    const stopped = await Promise.all(fleets.map((f) => f.stop()));
    await watcher.stop();

    // Recovery bound, from the takeover (the promoted node owns the slots, every master agrees). A
    // gateway is back at its first answered sync part. The part in flight at the takeover went to the
    // dead node: it fails at once (connection refused) or gives up at storeTimeoutMs; the next tick
    // (≤ syncMs later) resends it. If that resend still finds the stale slot map, it fails the same
    // way, and its failure has made the client refresh the map (a command the client routes to
    // another node comes back MOVED; a closed connection refreshes after retryDelayOnFailover,
    // 100 ms < storeTimeoutMs); the tick after goes to the new master and is answered within the
    // timeout. So twice (storeTimeoutMs + syncMs), plus how late this process's timers ran (lag,
    // measured in the same run: six gateways, the load and the poller share one event loop).
    const lagMs = lag.stop();
    const RECOVERY_BOUND_MS = 2 * (TIMEOUT + SYNC) + lagMs;
    const recoveries = fleets.flatMap((f) =>
      f.downSpans.map((spans) => {
        const s = spans.find(([from, to]) => to > killedAt && from < promoted2 + 5000);
        return s === undefined ? Number.NaN : s[1] - promoted2;
      }),
    );
    checkAgainstStore(fleets, plans, watcher.stamps(), stopped, {
      k: K,
      limit: L,
      windowMs: W,
      admittedAtLeast: { n: L, why: 'driven to its limit' },
    });
    console.log(
      `coordinated failover: promoted in ${promoted1 - failoverAt} ms; the promoted node's cache before: ${coldCache.join('')}, ` +
        `after: ${loaded1.join('')}, NOSCRIPT answered: ${noscript1 - noscript0}, EVAL resends: ${evals1}; ` +
        `kill + takeover: store-down before the takeover ${downBeforeTakeover.filter(Boolean).length}/${downBeforeTakeover.length} ` +
        `(staleAfterMs ${staleAfterMs}), back after the takeover in ${recoveries.map((r) => Math.round(r)).join(' ')} ms ` +
        `(bound ${Math.round(RECOVERY_BOUND_MS)}, lag ${Math.round(lagMs)}); cache after: ${loaded2.join('')}`,
    );
    // each promoted node started without the scripts and had every one of them after (loaded on the
    // client's slot-map refresh, or cached by the EVAL resend of a call that met NOSCRIPT first: which
    // of the two comes first is a race, so neither count is asserted)
    expect(coldCache.every((x) => x === 0)).toBe(true);
    expect(loaded1.every((x) => x === 1)).toBe(true);
    expect(loaded2.every((x) => x === 1)).toBe(true);
    // every gateway went store-down with the master and came back within the bound
    expect(downBeforeTakeover.every(Boolean)).toBe(true);
    for (const r of recoveries) expect(r).toBeLessThanOrEqual(RECOVERY_BOUND_MS);
  }, 120_000);
});

/** The SHA-1 of every script a RedisStore in exact mode loads. */
function scriptShas(): string[] {
  // sync.lua is composed with merge (RedisStore: its carried calls run as one), which its source says
  return ['log-admit.lua', 'void.lua', 'sync.lua', 'ask.lua'].map(
    (op) => composeScript(op, 'window-exact.lua', false, true, op === 'sync.lua').sha,
  );
}
