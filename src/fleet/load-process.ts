/**
 * The load: the simulator's arrivals, sent over HTTP to the gateways' ports on keep-alive
 * connections, plus a thin baseline stream straight to the upstream. Open loop (arrivals do not wait
 * for answers), bounded in count (maxRequests, maxInFlight) and in time (durationMs + drainMs).
 * One timer per tick sends every arrival that is due, on the lean client (lean-http.ts); the samples
 * go in preallocated typed arrays, so the load itself costs as little CPU as it can.
 */

import { Random } from '../sim/random.js';
import { ArrivalCounts } from './arrival-counts.js';
import { Arrivals } from './arrivals.js';
import { childSetup, cpuSince, send, wallNow } from './children.js';
import { keyPath, ZipfKeys } from './key-choice.js';
import { LeanHttpPool } from './lean-http.js';
import type { CoordinatorMessage, LoadConfig, LoadReport } from './protocol.js';
import { summarize } from './stats.js';

const cfg = childSetup<LoadConfig>();

// enough connections per gateway for its share of maxInFlight: a connection carries one request at a time
const pools = cfg.gatewayPorts.map(
  (port) => new LeanHttpPool(port, '/', Math.ceil(cfg.maxInFlight / cfg.gatewayPorts.length)),
);
const directPool = new LeanHttpPool(cfg.upstreamPort, '/direct', 8);

/**
 * With settings.scale, the gateway an arrival at t goes to: one of the gateways live then, evenly,
 * from an RNG of its own (the arrivals' instants stay those of the seed). Otherwise its own pick.
 */
const liveRng = new Random(cfg.seed ^ 0x68e31da4);
function routeAt(t: number, picked: number): number {
  const steps = cfg.live;
  if (steps === undefined || steps.length === 0) return picked;
  let count = steps[0].count;
  for (const s of steps) if (s.atMs <= t) count = s.count;
  return Math.min(count - 1, Math.floor(liveRng.uniform() * count));
}

/** A growable sample of numbers in a Float64Array. */
class Samples {
  private a = new Float64Array(1 << 12);
  n = 0;
  push(v: number): void {
    if (this.n === this.a.length) {
      const g = new Float64Array(this.a.length * 2);
      g.set(this.a);
      this.a = g;
    }
    this.a[this.n++] = v;
  }
  get values(): Float64Array {
    return this.a.subarray(0, this.n);
  }
}

let inFlight = 0;
let sent = 0;
let ok = 0;
let limited = 0;
let failed = 0;
/** Set when the run starts (its lateAfterMs). */
let counts = new ArrivalCounts(0);
const lag = new Samples();
const all = new Samples();
const admitted = new Samples();
const rejected = new Samples();
const direct = new Samples();
let cpuAtGo = process.cpuUsage();

function fire(
  pool: LeanHttpPool,
  path: string | undefined,
  done: (status: number, ms: number) => void,
): void {
  const at = wallNow();
  inFlight++;
  pool.get((status) => {
    inFlight--;
    done(status, wallNow() - at);
  }, path);
}

// many keys: each arrival's key from a stream of its own, so the arrivals' instants stay those of the seed
const zipf = cfg.keys === undefined ? null : new ZipfKeys(cfg.keys.count, cfg.keys.popularity);
const keyRng = new Random(cfg.seed ^ 0x1b873593);
const flooded = cfg.keys?.flooded ?? [];
const isFlooded = new Set(flooded);
/** answered honest requests on unflooded keys / flood requests: [answered, 429] */
const calm = { answered: 0, limited: 0 };
const flood = { answered: 0, limited: 0 };

/** An honest arrival (its key by popularity), or a flood arrival on flooded key `rank`. */
function viaGateway(g: number, floodRank?: number): void {
  sent++;
  const rank = floodRank ?? (zipf === null ? -1 : zipf.pick(keyRng));
  const path = rank < 0 ? undefined : keyPath(rank);
  const tally = floodRank !== undefined ? flood : rank >= 0 && !isFlooded.has(rank) ? calm : null;
  fire(pools[g], path, (status, ms) => {
    if (status === 200) {
      ok++;
      admitted.push(ms);
    } else if (status === 429) {
      limited++;
      rejected.push(ms);
      if (tally !== null) tally.limited++;
    } else {
      failed++;
      return;
    }
    if (tally !== null) tally.answered++;
    all.push(ms);
  });
}

/**
 * The same traffic for warmupMs on the path /warmup (its own key at the gateways, not logged by the
 * upstream): the processes' code is compiled and the connections are open before the measured run, as
 * in a fleet that has been serving for a while; a cold start is a burst of its own the simulator has
 * no counterpart of. Then 'warm', once its answers are in (at most drainMs).
 */
function warmup(): void {
  // an onset's warm-up is its flood: the paths the flood takes are compiled and its connections open
  const onset = cfg.onset;
  const arrivals =
    onset === undefined
      ? configuredArrivals(cfg.seed ^ 0x2545f491, undefined)
      : new Arrivals(
          'flood',
          0,
          cfg.limit,
          cfg.windowMs,
          'even',
          cfg.gatewayPorts.length,
          cfg.seed ^ 0x2545f491,
          {
            ...onset,
            atMs: 0,
          },
        );
  let next = arrivals.take();
  let waiting = 0;
  const t0 = wallNow();
  const tick = () => {
    const now = wallNow() - t0;
    while (next.t <= now && next.t < cfg.warmupMs) {
      if (waiting < cfg.maxInFlight) {
        waiting++;
        pools[routeAt(0, next.gateway)].get(() => waiting--, '/warmup');
      }
      next = arrivals.take();
    }
    if (now < cfg.warmupMs) setTimeout(tick, Math.max(0, Math.floor(next.t - (wallNow() - t0))));
    else {
      const deadline = wallNow() + cfg.drainMs;
      const settle = () => {
        if (waiting > 0 && wallNow() < deadline) setTimeout(settle, 10);
        else send({ type: 'warm' });
      };
      settle();
    }
  };
  tick();
}

/** The configured traffic's arrivals over the gateways, from `seed`, with `onset`'s flood or none. */
function configuredArrivals(seed: number, onset: typeof cfg.onset): Arrivals {
  return new Arrivals(
    cfg.traffic,
    cfg.load,
    cfg.limit,
    cfg.windowMs,
    cfg.routing,
    cfg.gatewayPorts.length,
    seed,
    onset,
  );
}

function run(): void {
  const arrivals = configuredArrivals(cfg.seed, cfg.onset);
  // its own stream, so the baseline never shifts the gateway arrivals of a seed
  const directRng = new Random(cfg.seed ^ 0x5bd1e995);
  // the flood: its own stream too, Poisson at floodLoad × L per W per flooded key
  const floodRng = new Random(cfg.seed ^ 0x3c6ef372);
  const floodPerMs =
    flooded.length > 0 ? (flooded.length * (cfg.keys?.floodLoad ?? 0) * cfg.limit) / cfg.windowMs : 0;
  const K = cfg.gatewayPorts.length;
  let nextFlood = floodPerMs > 0 ? floodRng.exponential(floodPerMs) : Number.POSITIVE_INFINITY;
  let nextDirect =
    cfg.directRate > 0 ? directRng.exponential(cfg.directRate / 1000) : Number.POSITIVE_INFINITY;
  let next = arrivals.take();
  counts = new ArrivalCounts(cfg.lateAfterMs);
  cpuAtGo = process.cpuUsage();
  const t0 = wallNow();

  const tick = () => {
    const now = wallNow() - t0;
    while (next.t <= now && next.t < cfg.durationMs && counts.scheduled < cfg.maxRequests) {
      const late = now - next.t;
      lag.push(late);
      if (counts.arrive(late, inFlight < cfg.maxInFlight)) viaGateway(routeAt(next.t, next.gateway));
      next = arrivals.take();
    }
    while (nextFlood <= now && nextFlood < cfg.durationMs && counts.scheduled < cfg.maxRequests) {
      const late = now - nextFlood;
      lag.push(late);
      const rank = flooded[Math.min(flooded.length - 1, Math.floor(floodRng.uniform() * flooded.length))];
      const g = Math.min(K - 1, Math.floor(floodRng.uniform() * K));
      if (counts.arrive(late, inFlight < cfg.maxInFlight)) viaGateway(routeAt(nextFlood, g), rank);
      nextFlood += floodRng.exponential(floodPerMs);
    }
    while (nextDirect <= now && nextDirect < cfg.durationMs) {
      fire(directPool, undefined, (status, ms) => {
        if (status === 200) direct.push(ms);
      });
      nextDirect += directRng.exponential(cfg.directRate / 1000);
    }
    if (now < cfg.durationMs && counts.scheduled < cfg.maxRequests) {
      const due = Math.min(next.t, nextDirect, nextFlood) - (wallNow() - t0);
      setTimeout(tick, Math.max(0, Math.floor(due)));
    } else drain(t0, wallNow() + cfg.drainMs);
  };
  tick();
}

function drain(startedAt: number, deadline: number): void {
  if (inFlight > 0 && wallNow() < deadline) {
    setTimeout(() => drain(startedAt, deadline), 10);
    return;
  }
  const report: LoadReport = {
    type: 'report',
    startedAt,
    scheduled: counts.scheduled,
    sent,
    skipped: counts.skipped,
    ok,
    limited,
    failed: failed + inFlight,
    unanswered: inFlight,
    lateSends: counts.lateSends,
    lag: summarize(lag.values),
    viaGateway: summarize(all.values),
    admittedViaGateway: summarize(admitted.values),
    limitedViaGateway: summarize(rejected.values),
    direct: summarize(direct.values),
    connections: pools.reduce((a, p) => a + p.opened, 0),
    cpuMs: cpuSince(cpuAtGo),
    ...(zipf !== null ? { calm } : {}),
    ...(flooded.length > 0 ? { flood } : {}),
  };
  for (const p of pools) p.destroy();
  directPool.destroy();
  send(report);
}

process.on('message', (m: CoordinatorMessage) => {
  if (m.type === 'warmup') warmup();
  else if (m.type === 'go') run();
  else if (m.type === 'stop') process.exit(0);
});
send({ type: 'ready' });
