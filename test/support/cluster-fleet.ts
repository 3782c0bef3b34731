import { once } from 'node:events';
import calculateSlot from 'cluster-key-slot';
import { Cluster, Redis } from 'ioredis';
import type { DesignId, Policy } from '../../src/config.js';
import type { Decision } from '../../src/gateway/decision.js';
import { type AsyncGateway, createAsyncGateway } from '../../src/gateway/runtime/index.js';
import { Random } from '../../src/sim/random.js';
import { RedisStore } from '../../src/store/redis/index.js';
import { readExactLog } from './exact-log.js';
import { gatewayClientOptions } from './fault-fleet.js';
import type { RedisClusterHandle } from './redis-cluster.js';
import type { RedisServer } from './redis-server.js';

/**
 * Gateways on a real local Redis Cluster, each on its own ioredis Cluster client, and what a test
 * needs to check them against the store's own records: every allowed decision's stamp (`at`, the
 * instant the gateway pushes the admit with) per key, and the runs the store logged per key, read
 * often enough that none ages out unseen.
 */

/** A gateway's Cluster client as docs/production.md recommends: fail fast, the same node options. */
export function gatewayCluster(c: RedisClusterHandle, storeTimeoutMs: number): Cluster {
  const client = new Cluster(c.startup, {
    enableOfflineQueue: false,
    redisOptions: gatewayClientOptions(storeTimeoutMs),
  });
  client.on('error', () => {});
  return client;
}

export async function clusterReady(client: Cluster): Promise<Cluster> {
  if (client.status !== 'ready') await once(client, 'ready');
  return client;
}

export interface FleetSpec {
  design: DesignId;
  prefix: string;
  keys: string[];
  k: number;
  policy: Policy;
  syncMs: number;
  leaseTtlMs: number;
  storeTimeoutMs: number;
}

export interface ClusterFleet {
  spec: FleetSpec;
  gws: AsyncGateway[];
  clients: Cluster[];
  /** Per key: the `at` of every allowed decision. */
  allowed: Map<string, number[]>;
  requests: number;
  degraded: number;
  /** Per gateway: [start, end) wall-time spans in which stats().storeDown was true (see watchDown). */
  downSpans: [number, number][][];
  syncErrors: number;
  /** The first few failed syncs' causes (reason: message), for the log. */
  syncErrorNotes: string[];
  /** Runs arrivals until `until()` or `maxMs`; resolves once every decision is in. */
  drive(ratePerSec: number, maxMs: number, seed: number, until?: () => boolean): Promise<void>;
  /** Stops every gateway (a last sync each), then quits the clients. */
  stop(): Promise<boolean[]>;
}

export async function startClusterFleet(c: RedisClusterHandle, spec: FleetSpec): Promise<ClusterFleet> {
  const clients = Array.from({ length: spec.k }, () => gatewayCluster(c, spec.storeTimeoutMs));
  await Promise.all(clients.map(clusterReady));
  const gws = clients.map((client, i) =>
    createAsyncGateway({
      id: `${spec.prefix}gw-${i}`,
      design: spec.design,
      limit: spec.policy.limit,
      windowMs: spec.policy.windowMs,
      gateways: spec.k,
      syncMs: spec.syncMs,
      leaseTtlMs: spec.leaseTtlMs,
      store: new RedisStore(client, { prefix: spec.prefix }),
      storeTimeoutMs: spec.storeTimeoutMs,
      failMode: 'local',
    }),
  );
  const fleet: ClusterFleet = {
    spec,
    gws,
    clients,
    allowed: new Map(spec.keys.map((k) => [k, []])),
    requests: 0,
    degraded: 0,
    downSpans: gws.map(() => []),
    syncErrors: 0,
    syncErrorNotes: [],
    async drive(ratePerSec, maxMs, seed, until = () => false) {
      const rng = new Random(seed);
      const start = Date.now();
      const maxRequests = Math.ceil((ratePerSec * maxMs) / 1000) * 2;
      const pending: Promise<void>[] = [];
      const note = (key: string, d: Decision) => {
        if (d.degraded) fleet.degraded++;
        if (d.allowed) fleet.allowed.get(key)!.push(d.at!);
      };
      let next = start;
      while (Date.now() - start < maxMs && fleet.requests < maxRequests && !until()) {
        while (next <= Date.now() && fleet.requests < maxRequests) {
          next += rng.exponential(ratePerSec / 1000);
          const gw = gws[Math.floor(rng.uniform() * gws.length)];
          const key = spec.keys[Math.floor(rng.uniform() * spec.keys.length)];
          fleet.requests++;
          const d = gw.admitNow(key);
          if (d instanceof Promise) pending.push(d.then((x) => note(key, x)));
          else note(key, d);
        }
        await sleep(2);
      }
      await Promise.all(pending);
    },
    async stop() {
      const done = await Promise.all(gws.map((g) => g.stop()));
      for (const cl of clients) cl.disconnect();
      return done;
    },
  };
  for (const gw of gws)
    gw.on('syncError', (e) => {
      fleet.syncErrors++;
      if (fleet.syncErrorNotes.length < 5)
        fleet.syncErrorNotes.push(`${e.reason}: ${e.error instanceof Error ? e.error.message : e.error}`);
    });
  for (const gw of gws) gw.start();
  return fleet;
}

/** Samples each gateway's storeDown every `everyMs` into fleet.downSpans until `stop()`. */
export function watchDown(fleet: ClusterFleet, everyMs = 5): { stop(): void } {
  const open: (number | null)[] = fleet.gws.map(() => null);
  const timer = setInterval(() => {
    const t = Date.now();
    fleet.gws.forEach((g, i) => {
      const down = g.stats().storeDown;
      if (down && open[i] === null) open[i] = t;
      if (!down && open[i] !== null) {
        fleet.downSpans[i].push([open[i]!, t]);
        open[i] = null;
      }
    });
  }, everyMs);
  return {
    stop() {
      clearInterval(timer);
      const t = Date.now();
      open.forEach((o, i) => {
        if (o !== null) fleet.downSpans[i].push([o, t]);
      });
    },
  };
}

/**
 * The store's own log of each key (exact mode: a sorted set of runs, member '<counter>*<admits>',
 * score the admit instant), read every `everyMs` through its own client, which follows MOVED and
 * ASK like any other: every run ever seen, by member, so a run is counted once however often it is
 * read. A read that fails (a node mid-failover) is tried again at the next poll.
 */
export class LogWatcher {
  private readonly runs = new Map<string, Map<string, { at: number; n: number }>>();
  private running = true;
  private loop: Promise<void> = Promise.resolve();
  readonly client: Cluster;

  constructor(
    c: RedisClusterHandle,
    private readonly logs: Map<string, string>,
  ) {
    this.client = new Cluster(c.startup, { redisOptions: { maxRetriesPerRequest: 1 } });
    this.client.on('error', () => {});
    for (const k of logs.keys()) this.runs.set(k, new Map());
  }

  start(everyMs: number): void {
    this.loop = (async () => {
      while (this.running) {
        await this.read();
        await sleep(everyMs);
      }
    })();
  }

  async read(): Promise<void> {
    await Promise.all(
      [...this.logs].map(async ([key, log]) => {
        try {
          const seen = this.runs.get(key)!;
          for (const run of await readExactLog(this.client, log))
            seen.set(run.id, { at: run.at, n: run.admits });
        } catch {
          // read again at the next poll
        }
      }),
    );
  }

  /** Stops polling, reads once more, quits its client. */
  async stop(): Promise<void> {
    this.running = false;
    await this.loop;
    await this.read();
    this.client.disconnect();
  }

  /** Per key: one stamp per admit the store logged, ascending. */
  stamps(): Map<string, number[]> {
    const out = new Map<string, number[]>();
    for (const [key, seen] of this.runs) {
      const ats: number[] = [];
      for (const { at, n } of seen.values()) for (let i = 0; i < n; i++) ats.push(at);
      out.set(
        key,
        ats.sort((a, b) => a - b),
      );
    }
    return out;
  }
}

/** Per key: the gateways' admits against the store's, as multisets of stamps. */
export interface KeyTally {
  key: string;
  admitted: number;
  stored: number;
  /** Admitted at a stamp the store has fewer of (lost). */
  lost: number;
  /** Stored at a stamp the gateways admitted fewer at (counted twice, or never admitted). */
  extra: number;
}

export function tally(allowed: Map<string, number[]>, stored: Map<string, number[]>): KeyTally[] {
  return [...allowed].map(([key, ats]) => {
    const left = new Map<number, number>();
    const st = stored.get(key) ?? [];
    for (const t of st) left.set(t, (left.get(t) ?? 0) + 1);
    let lost = 0;
    for (const t of ats) {
      const n = left.get(t) ?? 0;
      if (n === 0) lost++;
      else left.set(t, n - 1);
    }
    let extra = 0;
    for (const n of left.values()) extra += n;
    return { key, admitted: ats.length, stored: st.length, lost, extra };
  });
}

/** Keys named `<base><i>`, one per slot, the first `perNode` on each master in turn (by `client`'s slot map). */
export function keysOnEveryMaster(
  client: Cluster,
  names: (key: string) => string,
  base: string,
  perNode: number,
): string[] {
  const byNode = new Map<string, string[]>();
  const slots = new Set<number>();
  for (let i = 0; i < 10_000; i++) {
    const key = `${base}${i}`;
    const slot = calculateSlot(names(key));
    if (slots.has(slot)) continue;
    const node = client.slots[slot]?.[0];
    if (node === undefined) continue;
    let l = byNode.get(node);
    if (l === undefined) byNode.set(node, (l = []));
    if (l.length >= perNode) continue;
    l.push(key);
    slots.add(slot);
    if ([...byNode.values()].reduce((n, x) => n + x.length, 0) >= perNode * client.nodes('master').length)
      break;
  }
  return [...byNode.values()].flat();
}

/** A direct connection to each node, with its cluster node id. */
export interface NodeConn {
  server: RedisServer;
  conn: Redis;
  id: string;
  addr: string;
}

export async function nodeConns(c: RedisClusterHandle): Promise<NodeConn[]> {
  return Promise.all(
    c.nodes.map(async (server) => {
      const conn = new Redis(server.port, server.host, { maxRetriesPerRequest: 1 });
      conn.on('error', () => {});
      const id = (await conn.cluster('MYID')) as string;
      return { server, conn, id, addr: `${server.host}:${server.port}` };
    }),
  );
}

/**
 * Moves every key of `slot` from `src` to `dst`, a hundred a MIGRATE, as `redis-cli --cluster
 * reshard` does; the slot is MIGRATING on `src` (no key of it is created there meanwhile). A slot
 * holds the records of many user keys when keys are grouped (decision 0011).
 */
export async function migrateSlotKeys(src: NodeConn, dst: NodeConn, slot: number): Promise<number> {
  let moved = 0;
  for (let round = 0; round < 10_000; round++) {
    const keys = (await src.conn.cluster('GETKEYSINSLOT', slot, 100)) as string[];
    if (keys.length === 0) return moved;
    await src.conn.migrate(dst.server.host, dst.server.port, '', 0, 5000, 'KEYS', ...keys);
    moved += keys.length;
  }
  throw new Error(`slot ${slot} still holds keys after 10,000 MIGRATEs`);
}

/** Sums one field of INFO's `errorstats` or `commandstats` lines over `conns`, e.g. ('errorstat_ASK', 'count'). */
export async function infoSum(conns: Redis[], line: string, field: string): Promise<number> {
  let sum = 0;
  for (const c of conns) {
    const info = await c.info('all');
    const m = new RegExp(`^${line}:.*\\b${field}=(\\d+)`, 'm').exec(info);
    if (m !== null) sum += Number(m[1]);
  }
  return sum;
}

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

export { lagMonitor, worstWindow } from './fault-fleet.js';
