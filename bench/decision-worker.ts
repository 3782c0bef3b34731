/**
 * One decision-cost measurement in a fresh process (so no other design's classes make the call sites
 * polymorphic, and memory is returned between subjects):
 *   tsx bench/decision-worker.ts SUBJECT KEYS REGIME REPS N [CALL]
 * SUBJECT is a design id or 'rlf-memory'; CALL (designs only) 'admit' (default: `Gateway.admit`, a
 * Decision per call) or 'allow' (`Gateway.allow`: the same decision as a boolean, nothing allocated);
 * REGIME 'allowed' (L = 10^9: nearly every call admits) or
 * 'limited' (L = 100: one hot key in a flood, nearly every call rejects). KEYS − 1 other keys are held
 * (admitted once and synced) before the hot key is timed; the hot key is synced before each
 * repetition (untimed), as a running gateway syncs it every Δ. Each repetition times N calls of the subject
 * and, right before it, N calls of the bare baseline (Map lookup + compare + increment) over the same
 * number of keys, so every ratio compares two loops run side by side. Prints one JSON object.
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { RateLimiterMemory } from 'rate-limiter-flexible';
import { requireCost, requireKey, requireTime } from '../dist/config.js';
import { DESIGN_IDS, type DesignId, Gateway, MemoryStore } from '../dist/index.js';
import { median } from './util.js';

export interface DecisionSample {
  subject: string;
  /** The gateway call timed (designs): admit() or allow(). */
  call?: 'admit' | 'allow';
  keys: number;
  regime: 'allowed' | 'limited';
  /** Median ns per call of the subject. */
  nsPerOp: number;
  /** Median ns per call of the bare Map lookup + compare, measured in the same process. */
  baselineNsPerOp: number;
  /** Median of the per-repetition ratios subject / baseline. */
  ratioToBaseline: number;
  /** The same three in CPU time (process.cpuUsage): leaves out time the process spent descheduled. */
  cpuNsPerOp: number;
  baselineCpuNsPerOp: number;
  cpuRatioToBaseline: number;
  /** Share of the timed calls that were admitted. */
  allowedPct: number;
  /** rlf-memory: its storage's synchronous incrby() + compare (internal API), ns per call. */
  syncNsPerOp?: number;
  reps: number;
  n: number;
}

const [subject, keysArg, regimeArg, repsArg, nArg, callArg] = process.argv.slice(2);
const call = callArg === 'allow' ? 'allow' : 'admit';
const KEYS = Number(keysArg);
const regime = regimeArg === 'limited' ? 'limited' : 'allowed';
const LIMIT = regime === 'limited' ? 100 : 1_000_000_000;
const REPS = Number(repsArg);
const N = Number(nArg);
const HOT = 'user:hot';
const T0 = 1_700_000_000_000;
/**
 * Calls on the hot key per millisecond of virtual time (100,000 calls per second). Time moves in whole
 * milliseconds, as a gateway's clock does (Date.now(), the runtime's default): the calls of one
 * millisecond share an instant, and an exact log counts them as one (time, count) run. (Earlier
 * tables gave each call its own instant 0.01 ms apart, a worst case no millisecond clock produces.)
 */
const PER_MS = 100;

/**
 * V8's gc(), exposed at run time (the worker is started without flags). Collections of the harness's
 * own garbage — the setup's, an untimed sync's — are run before timing, so that they do not land in a
 * timed loop: there they would be charged to the calls, and at a million keys one collection of the
 * young generation takes 5–12 ms (~25–60 ns per call over a repetition), one of the whole heap ~1 s.
 */
setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as (opts?: { type: 'minor' | 'major' }) => void;

function nowNs(): number {
  return Number(process.hrtime.bigint());
}
/** This process's CPU time (user + system), ns: unlike wall time, it leaves out time spent descheduled. */
function cpuNs(): number {
  const c = process.cpuUsage();
  return (c.user + c.system) * 1000;
}

interface Timed {
  /** Wall time per call. */
  ns: number;
  /** CPU time per call. */
  cpuNs: number;
  allowed: number;
}

// the bare baseline: the least any limiter must do per request
interface Counter {
  count: number;
}
const map = new Map<string, Counter>();
for (let i = 1; i < KEYS; i++) map.set(`user:${i}`, { count: 1 });
map.set(HOT, { count: 0 });
let sink = 0;
function baseline(n: number): Timed {
  const c = cpuNs();
  const t = nowNs();
  let allowed = 0;
  for (let i = 0; i < n; i++) {
    const c = map.get(HOT)!;
    if (c.count < LIMIT) {
      c.count++;
      allowed++;
    }
  }
  const dt = nowNs() - t;
  const dc = cpuNs() - c;
  sink += allowed;
  if (regime === 'allowed') map.get(HOT)!.count = 0;
  return { ns: dt / n, cpuNs: dc / n, allowed };
}
let run: (n: number) => Promise<Timed> | Timed;
let syncBest: ((n: number) => number) | undefined;

/**
 * The floor of any keyed limiter API that checks its input as this library's must (a clear error
 * naming the key or field): the gateway's three checks, a method call, the key's Map lookup, a compare
 * and an increment; no design. What a design may add and stay within 2× of the Map loop is 2× minus this.
 */
class ApiFloor {
  private readonly keys = new Map<string, Counter>(map);
  allow(key: string, now: number, cost = 1): boolean {
    requireKey(key);
    requireTime('now', now);
    requireCost(cost);
    const c = this.keys.get(key);
    if (c === undefined || c.count >= LIMIT) return false;
    c.count += cost;
    return true;
  }
  /** The same with the shape `Gateway.admit` returns, a fresh object per call: the floor of admit(). */
  admit(key: string, now: number, cost = 1): { allowed: boolean; remaining: number; resetMs: number } {
    requireKey(key);
    requireTime('now', now);
    requireCost(cost);
    const c = this.keys.get(key);
    if (c === undefined || c.count >= LIMIT) return { allowed: false, remaining: 0, resetMs: 0 };
    c.count += cost;
    return { allowed: true, remaining: LIMIT - c.count, resetMs: 0 };
  }
}

if (subject === 'api-floor') {
  const floor = new ApiFloor();
  const clock = { now: T0 };
  run = (n) => {
    let now = clock.now;
    let allowed = 0;
    const c = cpuNs();
    const t = nowNs();
    let tick = 0;
    for (let i = 0; i < n; i++) {
      if (++tick === PER_MS) {
        tick = 0;
        now += 1;
      }
      if (call === 'allow' ? floor.allow(HOT, now) : floor.admit(HOT, now).allowed) allowed++;
    }
    const ns = (nowNs() - t) / n;
    const cpu = (cpuNs() - c) / n;
    clock.now = now;
    return { ns, cpuNs: cpu, allowed };
  };
} else if (subject === 'rlf-memory') {
  const rl = new RateLimiterMemory({ points: LIMIT, duration: 60 });
  for (let i = 1; i < KEYS; i++) await rl.consume(`user:${i}`);
  run = async (n) => {
    const c = cpuNs();
    const t = nowNs();
    let allowed = 0;
    for (let i = 0; i < n; i++) {
      try {
        await rl.consume(HOT);
        allowed++;
      } catch {
        // rejected: consume() rejects with a RateLimiterRes
      }
    }
    const ns = (nowNs() - t) / n;
    return { ns, cpuNs: (cpuNs() - c) / n, allowed };
  };
  // its best case without the promise: the storage call consume() wraps (not public API)
  const storage = (
    rl as unknown as {
      _memoryStorage: { incrby(k: string, v: number, s: number): { consumedPoints: number } };
    }
  )._memoryStorage;
  const rlKey = rl.getKey(HOT);
  syncBest = (n) => {
    const t = nowNs();
    let allowed = 0;
    for (let i = 0; i < n; i++) if (storage.incrby(rlKey, 1, 60).consumedPoints <= LIMIT) allowed++;
    sink += allowed;
    return (nowNs() - t) / n;
  };
} else {
  if (!(DESIGN_IDS as readonly string[]).includes(subject)) throw new Error(`unknown subject ${subject}`);
  const store = new MemoryStore();
  const gw = new Gateway(
    { id: 'gw-1', design: subject as DesignId, limit: LIMIT, windowMs: 60_000, gateways: 8, syncMs: 1_000 },
    store,
  );
  // virtual time lives in a field and a local of the timed loop: a captured `let` that the loop
  // reassigns would box a new heap number per call, a cost of the harness, not of admit()
  const clock = { now: T0 };
  for (let i = 1; i < KEYS; i++) gw.admit(`user:${i}`, clock.now);
  gw.admit(HOT, clock.now);
  gw.sync(clock.now);
  // One untimed sync of the hot key per repetition, as a gateway syncs every key it holds once per Δ:
  // without it the hot key's admits since its last sync would pile up over the whole run (1.8 million
  // by the last repetition), the lease designs would run on the grant sized at setup (leases-ask: a
  // store round trip every other call; leases: nothing admitted), and the timed loop would no longer
  // be the request path of a running gateway. Up to 100,000 keys `Gateway.sync` syncs them all. With
  // more, a sync of every key held takes seconds and leaves garbage that the timed loops' collections
  // would pay for, while the other keys have nothing to push: the hot key alone is synced, through the
  // calls `Gateway.sync` makes for each key (its entry, the store's answer for that one key).
  const syncAll = KEYS <= 100_000;
  const syncHot = hotKeySync(gw, store);
  const sync = (now: number) => (syncAll ? gw.sync(now) : syncHot(now));
  run = (n) => {
    clock.now += 1;
    sync(clock.now);
    // the sync's garbage (its pushes, the reply's expiries) is the sync's cost, not the timed calls'
    gc({ type: 'minor' });
    let now = clock.now;
    let allowed = 0;
    const c = cpuNs();
    const t = nowNs();
    let tick = 0;
    if (call === 'allow') {
      for (let i = 0; i < n; i++) {
        if (++tick === PER_MS) {
          tick = 0;
          now += 1;
        }
        if (gw.allow(HOT, now)) allowed++;
      }
    } else {
      for (let i = 0; i < n; i++) {
        if (++tick === PER_MS) {
          tick = 0;
          now += 1;
        }
        if (gw.admit(HOT, now).allowed) allowed++;
      }
    }
    const ns = (nowNs() - t) / n;
    const cpu = (cpuNs() - c) / n;
    clock.now = now;
    return { ns, cpuNs: cpu, allowed };
  };
}

/**
 * A sync of the hot key alone, the same exchange `Gateway.sync` makes for each key it holds: the key's
 * entry, the store's answer for it, applied. It numbers its syncs after the gateway's own setup sync
 * (seq 1), and the gateway makes no other: the store refuses a seq older than the last it applied.
 */
function hotKeySync(gw: Gateway, store: MemoryStore): (now: number) => void {
  const { policy, fleet } = gw.options;
  let seq = 1;
  return (now) => {
    const lim = gw.limiterFor(HOT);
    const entry = lim?.syncEntry(HOT, now) ?? null;
    // central-log holds no state; split never syncs
    if (lim === undefined || entry === null) return;
    const req = {
      gatewayId: gw.id,
      seq: ++seq,
      policy,
      leaseTtlMs: fleet.leaseTtlMs,
      horizonMs: fleet.horizonMs,
      entries: [entry],
    };
    lim.applySync(store.syncKey(req, entry, now), now);
  };
}

// the setup's garbage, collected before the warm-up rather than in a timed loop
gc();
// warm-up: JIT both loops (twice: on a loaded machine the optimizing compiler lags)
for (let w = 0; w < 2; w++) {
  baseline(N);
  await run(N);
  syncBest?.(N);
}
const subj: number[] = [];
const base: number[] = [];
const ratios: number[] = [];
const subjCpu: number[] = [];
const baseCpu: number[] = [];
const cpuRatios: number[] = [];
const syncs: number[] = [];
let allowed = 0;
for (let r = 0; r < REPS; r++) {
  const b = baseline(N);
  const s = await run(N);
  base.push(b.ns);
  subj.push(s.ns);
  ratios.push(s.ns / b.ns);
  baseCpu.push(b.cpuNs);
  subjCpu.push(s.cpuNs);
  cpuRatios.push(s.cpuNs / b.cpuNs);
  allowed += s.allowed;
  if (syncBest !== undefined) syncs.push(syncBest(N));
}
const out: DecisionSample = {
  subject,
  ...(subject === 'rlf-memory' ? {} : { call }),
  keys: KEYS,
  regime,
  nsPerOp: median(subj),
  baselineNsPerOp: median(base),
  ratioToBaseline: median(ratios),
  cpuNsPerOp: median(subjCpu),
  baselineCpuNsPerOp: median(baseCpu),
  cpuRatioToBaseline: median(cpuRatios),
  allowedPct: (100 * allowed) / (REPS * N),
  reps: REPS,
  n: N,
};
if (syncs.length > 0) out.syncNsPerOp = median(syncs);
if (sink === -1) out.reps = 0; // keeps `sink` live
process.stdout.write(`${JSON.stringify(out)}\n`);
