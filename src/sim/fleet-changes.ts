/**
 * A fleet whose size changes mid-run (docs/autoscaling.md): one key on the library's own `Gateway`s
 * over one MemoryStore, on virtual time, as many-keys drives them. Gateways join and leave on a
 * schedule; each decides with the K it is configured with, right or wrong, or with `gateways: 'auto'`
 * with the count of live gateways its last sync brought, as in production (a heartbeat per sync).
 * Separate from the single-key engine, whose runs stay as they were: this one is slower (every request
 * goes through Gateway.allow, every sync through Gateway.sync) and has no store delay or loss.
 *
 * A gateway that joins syncs at once (the async runtime's first decision waits for the first count),
 * then every Δ at a phase of its own; one that leaves pushes what it has (stop()'s last sync) and
 * leaves the count at once, or with `crash` just stops. The fleet at 0 has been running (each of its
 * gateways has counted all of it). Requests are spread evenly over the gateways live at their instant.
 */
import type { DesignId } from '../config.js';
import { Gateway } from '../gateway/gateway.js';
import { MemoryStore } from '../store/memory-store.js';
import { Random } from './random.js';

/** From `atS` on (seconds), `gateways` gateways are live. */
export interface FleetStep {
  atS: number;
  gateways: number;
}

export interface FleetChangeParams {
  design: DesignId;
  limit: number;
  windowS: number;
  syncS: number;
  /** Live gateways over time, ascending; the first step is at 0. */
  fleet: readonly FleetStep[];
  /** What every gateway is configured with: a fixed K, or 'auto' (the store's count). */
  configured: number | 'auto';
  /** The honest client's rate, × L per W (0: none). */
  honestLoad: number;
  /** A flood's rate on top, × L per W (0: none). */
  floodLoad: number;
  minutes: number;
  seed: number;
  /**
   * Gateways that leave crash (no last sync, no leaving beat: their unpushed admits are lost and they
   * count until the liveness window has passed) instead of stopping. Default false.
   */
  crash?: boolean;
  /**
   * The fleet at 0 starts then, all at once (each counts the gateways that beat before it), instead of
   * having run before. Default false.
   */
  coldStart?: boolean;
  /** With configured 'auto': GatewayOptions.initialGateways. Default 1. */
  initialGateways?: number;
}

export interface FleetChangeMetrics {
  /** Mean admitted per W after the first W, × L. */
  admittedPerWindow: number;
  /** Most admitted in any W-long span after the first W (the flood's onset on an empty store is not the point), × L. */
  worstWindow: number;
  /** Admitted in the first W, × L: a flood's onset on an empty store (and, with coldStart, the fleet's start). */
  firstWindow: number;
  /** The honest client's requests rejected, percent. */
  honestRejectedPct: number;
  /** Mean over decisions of the deciding gateway's K ÷ the live K (1: every decision knew the fleet). */
  kRatio: number;
}

interface Member {
  gw: Gateway;
  nextSync: number;
}

/** One run (one seed). */
export function runFleetChanges(p: FleetChangeParams): FleetChangeMetrics {
  if (p.fleet.length === 0 || p.fleet[0].atS !== 0)
    throw new RangeError('fleet: the first step must be at 0 s');
  const W = p.windowS * 1000;
  const D = p.syncS * 1000;
  const L = p.limit;
  const end = p.minutes * 60_000;
  const rng = new Random(p.seed);
  const store = new MemoryStore();
  const live: Member[] = [];
  let joined = 0;
  const join = (t: number) => {
    const gw = new Gateway(
      {
        id: `g${joined++}`,
        design: p.design,
        limit: L,
        windowMs: W,
        gateways: p.configured,
        syncMs: D,
        ...(p.configured === 'auto' && p.initialGateways !== undefined
          ? { initialGateways: p.initialGateways }
          : {}),
      },
      store,
    );
    gw.sync(t);
    live.push({ gw, nextSync: t + rng.uniform() * D });
  };
  const leave = (t: number) => {
    const m = live.pop()!;
    if (p.crash === true) return;
    m.gw.sync(t);
    m.gw.leave(t);
  };
  const resize = (t: number, k: number) => {
    while (live.length < k) join(t);
    while (live.length > k) leave(t);
  };

  const honestRate = (p.honestLoad * L) / W;
  const floodRate = (p.floodLoad * L) / W;
  const INF = Number.POSITIVE_INFINITY;
  let nextHonest = honestRate > 0 ? rng.exponential(honestRate) : INF;
  let nextFlood = floodRate > 0 ? rng.exponential(floodRate) : INF;
  let step = 0;
  let nextStep = 0;
  const admits: number[] = [];
  let honest = 0;
  let honestRejected = 0;
  let decisions = 0;
  let kRatioSum = 0;

  const arrive = (t: number): boolean => {
    const m = live[Math.min(live.length - 1, Math.floor(rng.uniform() * live.length))];
    decisions++;
    kRatioSum += m.gw.gateways / live.length;
    const ok = m.gw.allow('k', t);
    if (ok) admits.push(t);
    return ok;
  };

  for (;;) {
    let syncAt = INF;
    let syncer: Member | null = null;
    for (const m of live) {
      if (m.nextSync < syncAt) {
        syncAt = m.nextSync;
        syncer = m;
      }
    }
    const t = Math.min(nextStep, syncAt, nextHonest, nextFlood);
    if (!(t < end)) break;
    if (t === nextStep) {
      resize(t, p.fleet[step].gateways);
      // the fleet at 0 was running before: each has counted all of it (a cold start is not the point)
      if (step === 0 && p.coldStart !== true) for (const m of live) m.gw.sync(t);
      step++;
      nextStep = step < p.fleet.length ? p.fleet[step].atS * 1000 : INF;
    } else if (t === syncAt) {
      syncer!.gw.sync(t);
      syncer!.nextSync += D;
    } else if (t === nextHonest) {
      honest++;
      if (!arrive(t)) honestRejected++;
      nextHonest = t + rng.exponential(honestRate);
    } else {
      arrive(t);
      nextFlood = t + rng.exponential(floodRate);
    }
  }

  return {
    admittedPerWindow: end > W ? admits.filter((a) => a >= W).length / ((end - W) / W) / L : 0,
    firstWindow: admits.filter((a) => a < W).length / L,
    worstWindow:
      worstSpan(
        admits.filter((a) => a >= W),
        W,
      ) / L,
    honestRejectedPct: honest > 0 ? (100 * honestRejected) / honest : 0,
    kRatio: decisions > 0 ? kRatioSum / decisions : 1,
  };
}

/** Most admits in any span [t, t + W) (admits ascending). */
function worstSpan(admits: readonly number[], W: number): number {
  let worst = 0;
  for (let i = 0, j = 0; j < admits.length; j++) {
    while (admits[j] - admits[i] >= W) i++;
    if (j - i + 1 > worst) worst = j - i + 1;
  }
  return worst;
}
