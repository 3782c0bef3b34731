import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DesignId, Policy } from '../../src/config.js';
import { FaultProxy } from '../../src/fleet/fault-proxy.js';
import type { Decision } from '../../src/gateway/decision.js';
import { type AsyncGateway, createAsyncGateway } from '../../src/gateway/runtime/index.js';
import { Random } from '../../src/sim/random.js';
import type {
  AskReply,
  AskRequest,
  AsyncStore,
  LogAdmitReply,
  LogAdmitRequest,
  LogVoid,
  SyncRequest,
  SyncResult,
} from '../../src/store/contract.js';
import { PassThroughStore } from '../../src/store/pass-through.js';
import { RedisStore } from '../../src/store/redis/index.js';
import { readExactLog } from '../support/exact-log.js';
import { gatewayClient, ready, sleep, worstWindow } from '../support/fault-fleet.js';
import { type RedisServer, startRedisServer } from '../support/redis-server.js';

/**
 * Issue 17, "Must show": the lease designs on a real redis-server under every fault at once — a 16 ms
 * round trip on every link, SCRIPT
 * FLUSH every 100 ms, one gateway's link cut for three lease TTLs, a share of sync and ask replies lost
 * after the store applied them (the runtime times out and resends), and a gateway killed without a
 * final sync and started again with the same id — while a flood far above L hits one key. Every
 * window is checked by the store's own stamps: the `at` of every allowed decision (the instant the
 * gateway pushes the admit with, on the store's clock), the killed gateway's included, and the log
 * the store itself kept (its sorted set, read every 200 ms). Never more than L.
 *
 * CHAOS_FAULTS=latency,flush,cut,loss,restart (a subset) runs only those faults, to take a failure apart;
 * CHAOS_DESIGNS=leases-ask runs one design; CHAOS_SEED changes the seed; CHAOS_NEW_ID=1 restarts the
 * killed gateway under another id (what a per-process incarnation would make the store see).
 */

const L = 20;
const W = 2000;
const SYNC = 50;
const TTL = 300;
const TIMEOUT = 100;
const K = 6;
const RUN_MS = 8000;
const RATE = 150; // requests per second on the one key: 15 × L per W
const FLUSH_EVERY = 100;
const CUT_AT = 1500;
const CUT_MS = 3 * TTL;
const KILL_FROM = 3000;
// the restarted gateway gets at least this long (1.5 W) to show that it admits
const RESTART_RUNS_MS = 3000;
// ...and the flood goes on up to this much longer until it has: under a flood each freed slot goes to
// whichever gateway syncs first, and the killed gateway's grant stays counted for TTL + W (it may have
// spent it unsynced), so a live gateway can go 1.5 W without a slot by chance (0 of 3,000 ms in a CI
// run beside other tests; 2 of 6 seeds beside a busy loop). A restart locked out never admits at all.
const RESTART_GRACE_MS = 2 * W;
const POLL_MS = 200;
const LOSS = 0.1;
const KEY = 'k';
const SEED = Number(process.env.CHAOS_SEED ?? 17);
const LINK_MS = 16;
const FAULTS = new Set((process.env.CHAOS_FAULTS ?? 'latency,flush,cut,loss,restart').split(','));
const DESIGNS = (process.env.CHAOS_DESIGNS ?? 'leases,leases-ask').split(',') as DesignId[];

let server: RedisServer;
let admin: Redis;
beforeAll(async () => {
  server = await startRedisServer();
  admin = await ready(gatewayClient(server.url));
});
afterAll(async () => {
  admin?.disconnect();
  await server?.stop();
});

/**
 * Runs every call on the real store, then loses the reply with probability `p`: the write stands and
 * the caller hears nothing until its own timeout has fired. `dead` is a crashed process: nothing more
 * reaches the store.
 */
class LossyStore extends PassThroughStore<AsyncStore> implements AsyncStore {
  p = 0;
  dead = false;
  lostSyncs = 0;
  lostAsks = 0;
  onLost: (kind: 'sync' | 'ask') => void = () => {};
  private readonly rng: Random;
  constructor(inner: AsyncStore, seed: number) {
    super(inner);
    this.rng = new Random(seed);
  }
  private lose<T>(r: T, kind: 'sync' | 'ask'): Promise<T> {
    if (this.p > 0 && this.rng.uniform() < this.p) {
      if (kind === 'sync') this.lostSyncs++;
      else this.lostAsks++;
      this.onLost(kind);
      return new Promise((_, reject) =>
        setTimeout(() => reject(new Error(`${kind} reply lost (test)`)), 2 * TIMEOUT),
      );
    }
    return Promise.resolve(r);
  }
  private alive(): void {
    if (this.dead) throw new Error('gateway killed (test)');
  }
  override async sync(req: SyncRequest, now: number): Promise<SyncResult> {
    this.alive();
    return this.lose(await this.inner.sync(req, now), 'sync');
  }
  override async ask(req: AskRequest, now: number): Promise<AskReply> {
    this.alive();
    return this.lose(await this.inner.ask(req, now), 'ask');
  }
  override async logAdmit(req: LogAdmitRequest, now: number): Promise<LogAdmitReply> {
    this.alive();
    return this.inner.logAdmit(req, now);
  }
  override async voidLogAdmits(gatewayId: string, pol: Policy, voids: LogVoid[], now: number): Promise<void> {
    this.alive();
    return this.inner.voidLogAdmits(gatewayId, pol, voids, now);
  }
}

/** One running gateway process: a restart makes a new one with the same id. */
interface Member {
  slot: number;
  /** 0 for the first process in a slot, 1 for its restart. */
  life: number;
  gw: AsyncGateway;
  client: Redis;
  store: LossyStore;
  retries: number;
  syncErrors: number;
  /** Seen storeDown in stats() while polled (the cut gateway). */
  sawDown: boolean;
  /** Killed: what it would still decide is never answered (a crashed process answers nothing). */
  killed: boolean;
  /** What it went through, at its decision time (printed for a window over L). */
  log: { at: number; what: string }[];
}

interface Allowed {
  at: number;
  slot: number;
  life: number;
  degraded: boolean;
  /** The request waited on the store (leases-ask's ask, or the first requests before the clock was known). */
  waited: boolean;
}

interface Outcome {
  design: DesignId;
  worst: number;
  worstStore: number;
  overAt: string[];
  admitted: number;
  requests: number;
  storeAdmits: number;
  storeOnly: number;
  liveUnstored: number;
  killedUnstored: number;
  killedUnsynced: number;
  restartAdmitted: number;
  flushes: number;
  noscript: number;
  lostSyncs: number;
  lostAsks: number;
  retries: number;
  syncTimeouts: number;
  cutSawDown: boolean;
  cutSyncErrors: number;
  cutUnsynced: number;
  cuts: number;
}

async function noscriptCount(): Promise<number> {
  const info = await admin.info('errorstats');
  const m = /errorstat_NOSCRIPT:count=(\d+)/.exec(info);
  return m === null ? 0 : Number(m[1]);
}

async function chaos(design: DesignId, d: number): Promise<Outcome> {
  const prefix = `chaos-${design}`;
  // every gateway's link runs through its own proxy: a round trip of LINK_MS (an ask in flight while a
  // sync is built, and requests waiting on it), and gateway 0's is the one cut
  const half = FAULTS.has('latency') ? LINK_MS / 2 : 0;
  const proxies = await Promise.all(
    Array.from({ length: K }, () =>
      FaultProxy.start({ targetPort: server.port, latencyUpMs: half, latencyDownMs: half }),
    ),
  );
  const proxy = proxies[0];
  const members: Member[] = [];
  const route: (Member | null)[] = [];
  const allowed: Allowed[] = [];
  const timeline: string[] = [];
  let t0 = Date.now();
  const mark = (what: string) => timeline.push(`${Date.now() - t0} ms ${what}`);

  const launch = async (slot: number, life: number): Promise<Member> => {
    const client = gatewayClient(proxies[slot].url, TIMEOUT);
    await ready(client);
    const store = new LossyStore(
      new RedisStore(client, { prefix: `${prefix}:` }),
      SEED * 100 + 10 * d + slot + life,
    );
    if (FAULTS.has('loss')) store.p = LOSS;
    const gw = createAsyncGateway({
      id: `${prefix}-gw-${slot}${life > 0 && process.env.CHAOS_NEW_ID ? '-new' : ''}`,
      design,
      limit: L,
      windowMs: W,
      gateways: K,
      syncMs: SYNC,
      leaseTtlMs: TTL,
      store,
      storeTimeoutMs: TIMEOUT,
      failMode: 'local',
    });
    const m: Member = {
      slot,
      life,
      gw,
      client,
      store,
      retries: 0,
      syncErrors: 0,
      sawDown: false,
      killed: false,
      log: [],
    };
    const note = (what: string) => {
      if (m.log.length < 5000) m.log.push({ at: gw.now(), what });
    };
    store.onLost = (kind) => note(`${kind} reply lost`);
    gw.on('sync', (e) => {
      if (e.retry) m.retries++;
      // plain answered syncs are every Δ: only resends are worth a line
      if (e.retry) note(`sync ${e.seq} (resend) ok in ${Math.round(e.latencyMs)} ms`);
    });
    gw.on('syncError', (e) => {
      m.syncErrors++;
      note(`sync ${e.seq} ${e.reason}`);
    });
    gw.on('storeCallError', (e) => note(`${e.call} ${e.reason}`));
    gw.start();
    members.push(m);
    route[slot] = m;
    return m;
  };
  await Promise.all(Array.from({ length: K }, (_, i) => launch(i, 0)));

  // the store's own log of the key, read often enough (every 200 ms, W = 2 s) that no admit ages out unseen
  const logKey = new RedisStore(admin, { prefix: `${prefix}:` }).keyNames(KEY, {
    limit: L,
    windowMs: W,
    windowKind: 'sliding',
  }).log;
  // every run the log held, by a name it keeps while it is there (see readExactLog)
  const stored = new Map<string, { at: number; n: number }>();
  const readLog = async () => {
    for (const run of await readExactLog(admin, logKey)) stored.set(run.id, { at: run.at, n: run.admits });
  };

  const rng = new Random(SEED * 1000 + d);
  t0 = Date.now();
  let running = true;
  let requests = 0;
  const pending: Promise<void>[] = [];
  let restartAdmits = 0;
  const decide = (m: Member, dec: Decision, waited = false) => {
    if (!dec.allowed || m.killed) return;
    if (m.life === 1) restartAdmits++;
    expect(dec.at).toBeTypeOf('number');
    allowed.push({ at: dec.at!, slot: m.slot, life: m.life, degraded: dec.degraded === true, waited });
  };

  // Poisson arrivals on the one key, each to a gateway picked at random (none while a slot is dead);
  // the gateways that are cut and killed get more shares, so they hold unsynced admits often (and the
  // restart competes for slots: under the flood the fleet takes every slot the moment it frees)
  const shares = Array.from({ length: K }, (_, i) => (i === 1 ? 3 : i === 0 ? 2 : 1));
  const total = shares.reduce((a, b) => a + b, 0);
  const pick = (u: number) => {
    let x = u * total;
    for (let i = 0; i < K; i++) {
      x -= shares[i];
      if (x < 0) return i;
    }
    return K - 1;
  };
  const drive = (async () => {
    const maxRequests = Math.ceil((RATE * (RUN_MS + RESTART_GRACE_MS)) / 1000) * 2;
    let next = t0;
    const restartWaits = () => FAULTS.has('restart') && restartAdmits === 0;
    while (
      running &&
      (Date.now() - t0 < RUN_MS || (restartWaits() && Date.now() - t0 < RUN_MS + RESTART_GRACE_MS)) &&
      requests < maxRequests
    ) {
      while (next <= Date.now() && requests < maxRequests) {
        next += rng.exponential(RATE / 1000);
        const m = route[pick(rng.uniform())];
        if (m === null) continue;
        requests++;
        const dec = m.gw.admitNow(KEY);
        if (dec instanceof Promise) pending.push(dec.then((x) => decide(m, x, true)));
        else decide(m, dec);
      }
      await sleep(1);
    }
  })();

  const poller = (async () => {
    for (let i = 0; running && i < (RUN_MS + RESTART_GRACE_MS) / POLL_MS + 10; i++) {
      await readLog();
      await sleep(POLL_MS);
    }
  })();

  let cutSyncErrors = 0;
  let cutUnsynced = 0;
  // one gateway's link cut for three lease TTLs, then back (what it sent meanwhile lands late)
  const cut = FAULTS.has('cut')
    ? (async () => {
        await sleep(CUT_AT);
        const m = route[0]!;
        // cut right after it admitted what no sync has carried yet: those admits wait past its lapse
        for (let i = 0; i < 1000 && Date.now() - t0 < RUN_MS - CUT_MS - 2000; i++) {
          if (m.gw.stats().unsyncedAdmits > 0) break;
          await sleep(2);
        }
        cutUnsynced = m.gw.stats().unsyncedAdmits;
        proxy.cut();
        mark(`cut gw-0 with ${cutUnsynced} unsynced admits`);
        const errorsBefore = m.syncErrors;
        for (let i = 0; i < CUT_MS / 20; i++) {
          if (m.gw.stats().storeDown) m.sawDown = true;
          await sleep(20);
        }
        proxy.restore();
        cutSyncErrors = m.syncErrors - errorsBefore;
        mark('restored gw-0');
      })()
    : Promise.resolve();

  // gateway 1 dies (no final sync) right after admits its store has not seen; a new one with its id starts
  let killedUnsynced = 0;
  const restart = FAULTS.has('restart')
    ? (async () => {
        await sleep(KILL_FROM);
        const old = route[1]!;
        for (let i = 0; i < 1000 && Date.now() - t0 < RUN_MS - RESTART_RUNS_MS; i++) {
          if (old.gw.stats().unsyncedAdmits > 0) break;
          await sleep(2);
        }
        killedUnsynced = old.gw.stats().unsyncedAdmits;
        route[1] = null;
        old.killed = true;
        old.store.dead = true;
        old.client.disconnect();
        mark(`killed gw-1 with ${killedUnsynced} unsynced admits`);
        await launch(1, 1);
        mark('restarted gw-1 (same id)');
      })()
    : Promise.resolve();

  await Promise.all([drive, cut, restart]);
  await Promise.all(pending);
  running = false;
  await poller;
  for (const m of members) m.store.p = 0;
  // the killed process's timer is still set: stopping it only clears it (its store is dead)
  await Promise.all(members.map((m) => m.gw.stop()));
  await readLog();
  for (const m of members) m.client.disconnect();
  const cuts = proxy.stats().cuts;
  await Promise.all(proxies.map((x) => x.close()));

  // match the store's log against the decisions: every stored admit is one a gateway made
  const left = new Map<number, number>();
  const storeAts: number[] = [];
  for (const { at, n } of stored.values()) for (let i = 0; i < n && i < 10 * L; i++) storeAts.push(at);
  for (const at of storeAts) left.set(at, (left.get(at) ?? 0) + 1);
  const take = (a: Allowed) => {
    const n = left.get(a.at) ?? 0;
    if (n === 0) return false;
    left.set(a.at, n - 1);
    return true;
  };
  const killed = (a: Allowed) => a.slot === 1 && a.life === 0 && FAULTS.has('restart');
  let liveUnstored = 0;
  let killedUnstored = 0;
  for (const a of allowed) if (!killed(a) && !take(a)) liveUnstored++;
  for (const a of allowed) if (killed(a) && !take(a)) killedUnstored++;
  let storeOnly = 0;
  for (const n of left.values()) storeOnly += n;

  const ats = allowed.map((a) => a.at);
  const worst = worstWindow(ats, W);
  const worstStore = worstWindow(storeAts, W);
  // where the windows over L end, against the fault timeline
  const overAt: string[] = [];
  const sorted = [...allowed].sort((a, b) => a.at - b.at);
  let lo = 0;
  for (let hi = 0; hi < sorted.length && overAt.length < 5; hi++) {
    while (sorted[hi].at - sorted[lo].at >= W) lo++;
    if (hi - lo + 1 > L) {
      const inWin = sorted.slice(lo, hi + 1);
      const from = (s: number, l: number) => inWin.filter((a) => a.slot === s && a.life === l).length;
      overAt.push(
        `${hi - lo + 1} in the window ending ${Math.round(sorted[hi].at - t0)} ms (per slot/life: ${members
          .map((m) => `${m.slot}.${m.life}=${from(m.slot, m.life)}`)
          .join(' ')})`,
      );
    }
  }
  if (overAt.length > 0) {
    console.log(`${design} timeline: ${timeline.join('; ')}`);
    // the first window over L, admit by admit, with what the gateways that admitted in it went through
    lo = 0;
    for (let hi = 0; hi < sorted.length; hi++) {
      while (sorted[hi].at - sorted[lo].at >= W) lo++;
      if (hi - lo + 1 <= L) continue;
      const inWin = sorted.slice(lo, hi + 1);
      const rel = (t: number) => (t - t0).toFixed(1);
      const lines = inWin.map(
        (a) =>
          `  admit ${rel(a.at)} gw ${a.slot}.${a.life}${a.degraded ? ' degraded' : ''}${a.waited ? ' waited' : ''}`,
      );
      const from = inWin[0].at - 2 * TTL;
      for (const m of members)
        for (const e of m.log)
          if (e.at >= from && e.at <= inWin[inWin.length - 1].at)
            lines.push(`  event ${rel(e.at)} gw ${m.slot}.${m.life}: ${e.what}`);
      lines.sort((a, b) => Number(a.split(' ')[3]) - Number(b.split(' ')[3]));
      console.log(
        `${design}: the first window over L (${inWin.length}), times in ms from the start:\n${lines.slice(0, 400).join('\n')}`,
      );
      break;
    }
  }
  const stats = members.map((m) => m.gw.stats());
  return {
    design,
    worst,
    worstStore,
    overAt,
    admitted: allowed.length,
    requests,
    storeAdmits: storeAts.length,
    storeOnly,
    liveUnstored,
    killedUnstored,
    killedUnsynced,
    restartAdmitted: allowed.filter((a) => a.slot === 1 && a.life === 1).length,
    flushes: 0,
    noscript: 0,
    lostSyncs: members.reduce((n, m) => n + m.store.lostSyncs, 0),
    lostAsks: members.reduce((n, m) => n + m.store.lostAsks, 0),
    retries: members.reduce((n, m) => n + m.retries, 0),
    syncTimeouts: stats.reduce((n, s) => n + s.syncTimeouts, 0),
    cutSawDown: members.some((m) => m.slot === 0 && m.sawDown),
    cutSyncErrors,
    cutUnsynced,
    cuts,
  };
}

describe('faults: lease chaos on real Redis (issue 17)', () => {
  it('leases and leases-ask under SCRIPT FLUSH, a cut past the TTL, lost replies and a restart with the same id: never more than L in any window', async () => {
    const noscript0 = await noscriptCount();
    let flushes = 0;
    let flushing = FAULTS.has('flush');
    const flusher = (async () => {
      for (let i = 0; flushing && i < (RUN_MS + RESTART_GRACE_MS + 5000) / FLUSH_EVERY; i++) {
        await admin.script('FLUSH');
        flushes++;
        await sleep(FLUSH_EVERY);
      }
    })();
    const designs = DESIGNS;
    let outs: Outcome[];
    try {
      outs = await Promise.all(designs.map((design, d) => chaos(design, d)));
    } finally {
      flushing = false;
      await flusher;
    }
    const noscript = (await noscriptCount()) - noscript0;
    for (const o of outs) {
      o.flushes = flushes;
      o.noscript = noscript;
      const perWindow = o.admitted / (RUN_MS / W);
      console.log(
        `${o.design.padEnd(10)}: worst window ${o.worst} by the decisions' stamps, ${o.worstStore} in the store's log (L = ${L}); ` +
          `${o.admitted} admitted of ${o.requests} (${perWindow.toFixed(1)} per W), store logged ${o.storeAdmits}; ` +
          `faults: ${o.flushes} flushes (${o.noscript} NOSCRIPT, both designs), ${o.lostSyncs} sync + ${o.lostAsks} ask replies lost, ` +
          `${o.retries} resends answered, ${o.syncTimeouts} sync timeouts, cut gw ${o.cuts} cut with ${o.cutUnsynced} unsynced (down seen: ${o.cutSawDown}, ${o.cutSyncErrors} sync errors during the cut), ` +
          `killed gw with ${o.killedUnsynced} unsynced (${o.killedUnstored} never reached the store), its restart admitted ${o.restartAdmitted}` +
          (o.overAt.length > 0 ? `\n  over L: ${o.overAt.join('\n  over L: ')}` : ''),
      );
    }
    for (const o of outs) {
      // the bound, by the gateways' stamps and by the store's own log
      expect.soft(o.worst, `${o.design}: worst window by the decisions' stamps`).toBeLessThanOrEqual(L);
      expect.soft(o.worstStore, `${o.design}: worst window in the store's log`).toBeLessThanOrEqual(L);
      // the store holds what the gateways admitted, each once; only the killed gateway's last admits are missing
      expect.soft(o.storeOnly, `${o.design}: stored admits no gateway made`).toBe(0);
      expect.soft(o.liveUnstored, `${o.design}: admits of live gateways the store never got`).toBe(0);
      // not vacuous: the fleet admitted at least half of L per window on average...
      expect
        .soft(o.admitted / (RUN_MS / W), `${o.design}: admitted per window`)
        .toBeGreaterThanOrEqual(L / 2);
      // ...and every fault happened
      if (FAULTS.has('flush')) expect.soft(o.flushes, 'flushes').toBeGreaterThan(0);
      if (FAULTS.has('loss')) {
        expect.soft(o.lostSyncs, `${o.design}: sync replies lost`).toBeGreaterThan(0);
        expect.soft(o.retries + o.syncTimeouts, `${o.design}: resends / sync timeouts`).toBeGreaterThan(0);
        if (o.design === 'leases-ask') expect.soft(o.lostAsks, 'ask replies lost').toBeGreaterThan(0);
      }
      if (FAULTS.has('cut')) {
        expect.soft(o.cuts, `${o.design}: cuts`).toBe(1);
        expect.soft(o.cutSawDown || o.cutSyncErrors > 0, `${o.design}: the cut gateway noticed`).toBe(true);
      }
      if (FAULTS.has('restart'))
        expect.soft(o.restartAdmitted, `${o.design}: the restarted gateway admitted`).toBeGreaterThan(0);
    }
  }, 40_000);
});
