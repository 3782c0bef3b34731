import { EarlySyncBucket } from '../../designs/early-syncs.js';
import { ALLOW, type KeyLimiter, NEED_STORE, readsOnRequest, syncsEarly } from '../../designs/key-limiter.js';
import { callStore } from '../../designs/key-steps.js';
import type { LeaseKey } from '../../designs/leases.js';
import type { RunMetrics, RunParams } from '../types.js';
import { Agenda } from './agenda.js';
import { InstantSync } from './instant-sync.js';
import { LeaseParking } from './lease-parking.js';
import { LossyLink } from './lossy-link.js';
import { newRunState } from './run-state.js';
import { scheduledSyncs } from './sync-clock.js';
import { Traffic } from './traffic.js';
import { WindowMeter } from './window-meter.js';

export interface EngineOptions {
  /**
   * Count the arrivals a gateway must reject anyway in one Poisson draw (default true). While a
   * gateway's decision cannot change before its next sync or its next known expiry, every arrival in
   * that span is rejected; how many arrive is one draw. Exact in distribution.
   */
  skip?: boolean;
  /** Record every request's decision in order (the per-arrival checks). Implies skip = false. */
  recordDecisions?: boolean;
  /**
   * Run every sync of every gateway through the store (default false: syncs that cannot change a
   * decision are skipped or fast-forwarded). The tests compare both, decision by decision.
   */
  everySync?: boolean;
}

export interface RunOutput extends RunMetrics {
  decisions?: Uint8Array;
}

/** What runAcrossSyncIntervals needs from a run beyond its metrics. */
export interface Probe {
  /** Each gateway's sync-phase draw, in [0, 1) (0 with aligned syncs). */
  phaseDraws: Float64Array;
  roundTrips: number;
}

/** One simulated run of one key on virtual time. The decisions are the library's own state machines. */
export function runSimulation(params: RunParams, opts: EngineOptions = {}): RunOutput {
  return simulate(params, opts, null);
}

/**
 * The loop: takes the earliest event (a gateway's reply, sync or arrival, the page-load stream, the
 * store watch) and runs it. Syncs that cannot change a decision are skipped or fast-forwarded unless
 * every sync is asked for; rejections a gateway cannot avoid are counted in one draw unless skip is off.
 *
 * The one function over 120 lines in src/ on purpose: it is the simulator's hot loop, and a version
 * with a named handler per event kind, every handler reading one run state, was 11-14 % slower on
 * `fleetlimit study --quick` (issue 34 item 5, alternating pairs on this 2-core machine).
 */
export function simulate(params: RunParams, opts: EngineOptions, probe: Probe | null): RunOutput {
  const record = opts.recordDecisions === true;
  const run = newRunState(params, {
    record,
    skip: !record && opts.skip !== false,
    everySync: opts.everySync === true,
  });
  const {
    K,
    W,
    D,
    L,
    end,
    fleet,
    realSync,
    skip,
    everySync,
    store,
    counts,
    rng,
    lims,
    seq,
    gatewayIds,
    clock,
  } = run;
  const traits = run.design;
  const kind = run.syncs;
  const traffic = new Traffic(run);
  const { mixed, pageload, lambda } = traffic;
  const { nextArr, nextFlood, replyAt } = run;
  const { phase, nextSync, nextSyncIdx } = clock;
  const leaseDesign = traits.grants;
  // every request of a log design asks the store (Design.requestPath), the rejected ones too
  const logPath = traits.requestPath === 'log';
  const agenda = new Agenda(run, traffic);
  const { tree, pageloadLeaf: PAGELOAD, watchLeaf: WATCH } = agenda;

  for (let g = 0; g < K; g++) {
    const u = params.alignedSyncs ? 0 : rng.uniform();
    if (probe !== null) probe.phaseDraws[g] = u;
    phase[g] = params.alignedSyncs ? 0 : u * D;
    nextSync[g] = kind === 'never' ? Number.POSITIVE_INFINITY : phase[g];
    nextSyncIdx[g] = 0;
    traffic.startGateway(g);
  }
  traffic.startBursts();

  const link = new LossyLink(run);
  const syncer = new InstantSync(run);
  const refresh = (g: number) => agenda.refresh(g);
  for (let g = 0; g < K; g++) refresh(g);
  if (pageload) tree.set(PAGELOAD, traffic.nextPageload());
  const parking = leaseDesign ? new LeaseParking(run, agenda) : null;
  const parkFrom = parking === null ? new Float64Array(K).fill(-1) : parking.parkFrom;

  const meter = new WindowMeter(W, L, params.windowKind === 'fixed', traffic.onsetAt);
  const decisions: number[] | null = record ? [] : null;
  // early syncs (Design.earlySyncs): each gateway's bucket, and the syncs they sent
  const early = traits.earlySyncs;
  const buckets =
    early === null
      ? null
      : Array.from({ length: K }, () => new EarlySyncBucket(early.burst, early.perSync, D));
  let earlySent = 0;
  /** After a decision at g at t: the early sync its key wants, now, if the bucket has a token. */
  const earlySync = (g: number, t: number, lim: KeyLimiter) => {
    if (buckets === null || !syncsEarly(lim) || !lim.wantsEarlySync(t)) return;
    if (realSync && link.busy(g)) return;
    if (!buckets[g].take(t)) return;
    earlySent++;
    if (realSync) link.startSync(g, t);
    else syncer.sync(g, t);
  };

  const limiterOf = (g: number, t: number): KeyLimiter => {
    let lim = lims[g];
    if (lim === null) {
      lim = lims[g] = traits.create(fleet, t);
      syncer.forget(g);
    }
    return lim;
  };

  /** One request at gateway g at time t; returns whether it was admitted. */
  const arrive = (g: number, t: number): boolean => {
    const lim = limiterOf(g, t);
    counts.requests++;
    const v = lim.decide(t, 1);
    let ok: boolean;
    if (v === NEED_STORE) {
      counts.roundTrips++;
      if (realSync) counts.waitMs += link.roundTripMs();
      ok = callStore(store, traits.requestPath, lim, gatewayIds[g], run.key, fleet, t, 1, seq[g]);
    } else ok = v === ALLOW;
    if (ok) meter.noteAdmit(t);
    else counts.rejected++;
    if (decisions !== null) decisions.push(ok ? 1 : 0);
    earlySync(g, t, lim);
    return ok;
  };

  /** An arrival at g makes its next sync instant needed again, whatever was skipped. */
  const needSyncAfter = (g: number, t: number) => {
    if (kind === 'never') return;
    const cur = nextSyncIdx[g];
    if (parkFrom[g] >= 0) {
      // the syncs a parked gateway skipped before this arrival happened: apply them first
      const need = clock.idxAtOrAfter(g, t);
      parking!.unpark(g, need);
      if (need < cur) clock.setNext(g, need);
      return;
    }
    // the common case, without the division: the next sync is already the first at or after t
    if (
      cur !== Number.POSITIVE_INFINITY &&
      clock.instant(g, cur) >= t &&
      (cur === 0 || clock.instant(g, cur - 1) < t)
    )
      return;
    const need = clock.idxAtOrAfter(g, t);
    if (need < cur) clock.setNext(g, need);
  };

  for (;;) {
    const leaf = tree.minLeaf();
    const t = tree.minTime();
    if (!(t < end)) break;
    if (leaf === WATCH) {
      // the store's oldest admit expires now: a slot frees
      parking!.watchStore(t, Number.NaN, -1);
      continue;
    }
    if (leaf === PAGELOAD) {
      // page-load stream: an arrival, or the next burst drawn
      const g = traffic.takePageload();
      if (g >= 0) {
        needSyncAfter(g, t);
        arrive(g, t);
        refresh(g);
      }
      tree.set(PAGELOAD, traffic.nextPageload());
      continue;
    }
    const g = leaf;
    // replies in flight and flood arrivals exist only with real syncs and mixed traffic
    if (realSync && replyAt[g] <= nextSync[g] && replyAt[g] <= nextArr[g] && replyAt[g] <= nextFlood[g]) {
      link.onReply(g, replyAt[g]);
      refresh(g);
      continue;
    }
    if (realSync && nextSync[g] <= nextArr[g] && nextSync[g] <= nextFlood[g]) {
      const s = nextSync[g];
      link.startSync(g, s);
      const next = nextSyncIdx[g] + 1;
      clock.setNext(
        g,
        lims[g] === null ? Math.max(next, clock.idxAtOrAfter(g, traffic.arrivalBound(g))) : next,
      );
      refresh(g);
      continue;
    }
    if (mixed && nextFlood[g] < nextArr[g] && nextFlood[g] < nextSync[g]) {
      // a flood arrival (pulsed, onset): every one decided on its own
      const t = nextFlood[g];
      needSyncAfter(g, t);
      arrive(g, t);
      nextFlood[g] = traffic.drawFlood(g, t);
      refresh(g);
      continue;
    }
    if (nextSync[g] <= nextArr[g]) {
      // a sync of gateway g
      const s = nextSync[g];
      if (parking !== null && parking.watchAt === s) {
        // the store's oldest admit expires at this instant too (aligned syncs, fixed window): its
        // slot is free for every sync at s, so the watch runs first (its leaf comes last on a tie)
        parking.watchStore(s, Number.NaN, -1);
        continue;
      }
      const idx = nextSyncIdx[g];
      if (parkFrom[g] >= 0) parking!.unpark(g, idx);
      syncer.sync(g, s);
      let next = idx + 1;
      const lim = lims[g];
      const bound = traffic.arrivalBound(g);
      // the store's free slots at s, if asked below (nothing changes them before the watch looks)
      let freeNow = Number.NaN;
      if (everySync || !(clock.instant(g, next) < bound)) {
        // every sync instant runs; or the next arrival comes by instant `next`, and each rule below
        // would keep it (they move `next` later only up to the first instant at or after the arrival)
      } else if (lim === null) {
        // no state held: the first sync that matters is the one after the next arrival
        next = Math.max(next, clock.idxAtOrAfter(g, bound));
      } else if (kind === 'lazy' && lim.unsyncedAdmits() === 0) {
        if (!readsOnRequest(lim)) {
          // nothing to push: only the last sync before the next arrival matters
          next = syncer.lastNeeded(g, next, bound);
        } else if (!lim.readDue(clock.instant(g, next))) {
          // reads follow requests (Design.readsFollowRequests): no read is due before the next arrival
          // (its view only ages until then), so no sync before it changes the view; the last one
          // finds the key idle if any would (idleness only grows without arrivals) and drops it
          next = Math.max(next, clock.idxAtOrAfter(g, bound) - 1);
        }
        // else a busy key's read is due at the next sync: each runs, as the next may depend on it
      } else if (kind === 'every' && parking !== null && lim.unsyncedAdmits() === 0) {
        // an idle lease gateway: park it while its syncs would change nothing
        next += parking.parkIdle(g, lim as LeaseKey, s, next, bound);
        freeNow = parking.freeAtPark;
      }
      clock.setNext(g, next);
      refresh(g);
      if (parking !== null && kind === 'every' && parking.parkedCount > 0) parking.watchStore(s, freeNow, g);
      continue;
    }
    // an arrival at gateway g (steady or flood stream)
    needSyncAfter(g, t);
    const ok = arrive(g, t);
    if (mixed) {
      counts.honestRequests++;
      if (!ok) counts.honestRejected++;
    }
    let from = t;
    if (!ok && skip && !mixed) {
      const lim = lims[g]!;
      let until = lim.nextChangeAt(t);
      // the next sync instant after t (lazy scheduling never skips past it once an arrival came)
      const ns = kind === 'never' ? Number.POSITIVE_INFINITY : nextSync[g];
      if (ns < until) until = ns;
      if (replyAt[g] < until) until = replyAt[g];
      // an early sync wanted but out of tokens: the first arrival after the next token sends it
      if (buckets !== null && lims[g] !== null && syncsEarly(lim) && lim.wantsEarlySync(t)) {
        const at = buckets[g].nextAt(t);
        if (at < until) until = at;
      }
      if (until > end) until = end;
      if (until > t) {
        const n = rng.poisson(lambda[g] * (until - t));
        if (n > 0) {
          counts.requests += n;
          counts.rejected += n;
          // every central-log request asks the store, the rejected ones too
          if (logPath) counts.roundTrips += n;
          lim.noteRejected(n, t + (until - t) * rng.uniform() ** (1 / n));
        }
        from = until;
      }
    }
    nextArr[g] = from + rng.exponential(lambda[g]);
    refresh(g);
  }

  parking?.countToEnd();

  let syncs = scheduledSyncs(phase, D, end);
  if (probe !== null) probe.roundTrips = counts.roundTrips;
  // real syncs: the ones a busy gateway skipped were not sent, and resends are extra
  if (realSync) syncs += link.extraSyncs - link.busySkips;
  syncs += earlySent;

  const { requests, rejected, roundTrips, returnedSum, leaseSyncs } = counts;
  const windowsAfterFirst = Math.max(end - W, 0) / W;
  const out: RunOutput = {
    admittedPerWindow: windowsAfterFirst > 0 ? meter.admittedAfterFirstWindow / windowsAfterFirst / L : 0,
    worstWindow: meter.worst / L,
    rejectedPct: requests > 0 ? (100 * rejected) / requests : 0,
    roundTripsPerRequest: requests > 0 ? roundTrips / requests : 0,
    syncs,
    requests,
    admitted: meter.admitted,
    windowsOverLimit: meter.overLimit,
    strandedPct: leaseSyncs > 0 ? (100 * (returnedSum / leaseSyncs) * K) / L : 0,
    latencyMs: requests > 0 ? counts.waitMs / requests : 0,
    storeOpsPerSec: end > 0 ? ((syncs + roundTrips) * 1000) / end : 0,
    honestRejectedPct: mixed
      ? counts.honestRequests > 0
        ? (100 * counts.honestRejected) / counts.honestRequests
        : 0
      : requests > 0
        ? (100 * rejected) / requests
        : 0,
    onsetWorst: meter.onsetWorst / L,
  };
  if (decisions !== null) out.decisions = Uint8Array.from(decisions);
  return out;
}
