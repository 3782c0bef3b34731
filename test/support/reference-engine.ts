/**
 * A plain reference engine, the oracle for src/sim/engine/: an event heap, every arrival drawn,
 * every sync run through the store, no skipping and no fast-forwarding. It uses the library's own
 * designs, store and random source, and nothing of the engine.
 *
 * It consumes randomness as the fast engine does when that runs with { skip: false, everySync: true,
 * recordDecisions: true }, so the two can be compared request by request:
 * - `rng`: each gateway's sync-phase draw, then its first steady and flood arrivals (gateway by
 *   gateway), then the first page-load burst; after that, each arrival draws its stream's next one
 *   when it is handled, and each burst draws its 10 gateways and the gap to the next burst. (The
 *   fast engine draws bursts ahead of time, but nothing else draws from `rng` with page loads.)
 * - `net` (seed ^ 0x5bd1e995): the network's draws (jitter, loss) in the order the events happen.
 * Equal instants resolve as in the fast engine: gateway 0 … K − 1, then the page-load stream; within
 * a gateway a reply, then a sync, then a steady arrival, then a flood arrival; within the page-load
 * stream an arrival, then a burst. A design with early syncs (Design.earlySyncs) sends one right
 * after a decision whose key wants it, if no sync is in flight and the gateway's bucket has a token.
 */
import { EarlySyncBucket } from '../../src/designs/early-syncs.js';
import { DESIGNS } from '../../src/designs/index.js';
import {
  ALLOW,
  type AsksStore,
  type KeyLimiter,
  type LogsAtStore,
  NEED_STORE,
  type SyncsEarly,
} from '../../src/designs/key-limiter.js';
import { resolveGatewayOptions } from '../../src/gateway/options.js';
import { Random } from '../../src/sim/random.js';
import type { RunParams } from '../../src/sim/types.js';
import type { SyncEntry, SyncReply, SyncRequest } from '../../src/store/contract.js';
import { MemoryStore } from '../../src/store/memory-store.js';

type Kind = 'reply' | 'sync' | 'arrival' | 'flood' | 'pageload' | 'burst';
/** The order of equal instants within a lane (a gateway, or the page-load stream). */
const RANK: Record<Kind, number> = { reply: 0, sync: 1, arrival: 2, flood: 3, pageload: 0, burst: 1 };
interface Event {
  t: number;
  kind: Kind;
  /** the gateway (for a burst: none, −1) */
  g: number;
  /** a sync's index: its instant is phase + idx · Δ */
  idx: number;
  /** the lane: g for a gateway's own events, K for the page-load stream's */
  lane: number;
  /** insertion order, the last tie-break */
  n: number;
}

/** A binary min-heap of events by (t, lane, rank, insertion). */
class EventHeap {
  private items: Event[] = [];
  private count = 0;

  push(e: Omit<Event, 'n'>): void {
    const items = this.items;
    items.push({ ...e, n: this.count++ });
    let i = items.length - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!before(items[i], items[parent])) break;
      [items[i], items[parent]] = [items[parent], items[i]];
      i = parent;
    }
  }

  pop(): Event | undefined {
    const items = this.items;
    const top = items[0];
    const last = items.pop();
    if (items.length > 0 && last !== undefined) {
      items[0] = last;
      let i = 0;
      for (;;) {
        const l = 2 * i + 1;
        const r = l + 1;
        let m = i;
        if (l < items.length && before(items[l], items[m])) m = l;
        if (r < items.length && before(items[r], items[m])) m = r;
        if (m === i) break;
        [items[i], items[m]] = [items[m], items[i]];
        i = m;
      }
    }
    return top;
  }
}

function before(a: Event, b: Event): boolean {
  if (a.t !== b.t) return a.t < b.t;
  if (a.lane !== b.lane) return a.lane < b.lane;
  if (RANK[a.kind] !== RANK[b.kind]) return RANK[a.kind] < RANK[b.kind];
  return a.n < b.n;
}

/** A sync in flight (a delay or loss): what was sent, the reply (null: lost), whether it was a resend. */
interface InFlight {
  entry: SyncEntry;
  reply: SyncReply | null;
  resend: boolean;
}

/** Every decision of one run, in order (1 admitted, 0 rejected). */
export function referenceDecisions(p: RunParams): Uint8Array {
  const K = p.gateways;
  const W = p.windowS * 1000;
  const D = p.syncS * 1000;
  const L = p.limit;
  const end = p.minutes * 60_000;
  const delayMs = p.storeDelayMs ?? 0;
  const jitterMs = p.storeJitterMs ?? 0;
  const loss = p.syncLoss ?? 0;
  const realSync = delayMs > 0 || jitterMs > 0 || loss > 0;
  const traits = DESIGNS[p.design];
  // the horizon the engine gives replies (a reply lists the expiries a decision can see)
  const horizonMs = loss > 0 ? W : realSync ? Math.min(W, 4 * D + delayMs + jitterMs) : D;
  const { fleet } = resolveGatewayOptions({
    id: 'sim',
    design: p.design,
    limit: L,
    windowMs: W,
    windowKind: p.windowKind,
    gateways: K,
    syncMs: D,
    horizonMs,
  });
  const rng = new Random(p.seed);
  const net = new Random((p.seed ^ 0x5bd1e995) >>> 0);
  const store = new MemoryStore();
  const ids = Array.from({ length: K }, (_, g) => `g${g}`);
  const seq = new Array<number>(K).fill(0);
  const lims: (KeyLimiter | null)[] = new Array(K).fill(null);
  const inFlight: (InFlight | null)[] = new Array(K).fill(null);
  /** the entry of a lost sync, sent again whole at the gateway's next sync instant */
  const lost: (SyncEntry | null)[] = new Array(K).fill(null);
  const decisions: number[] = [];
  const heap = new EventHeap();

  // the traffic: rates per ms
  const rate = (p.load * L) / W;
  const pick = p.attack === 'pick';
  const weights = Array.from({ length: K }, (_, i) => (p.routing === 'even' ? 1 : 1 / (i + 1)));
  const sum = weights.reduce((a, b) => a + b, 0);
  const cumulative: number[] = [];
  for (let i = 0, c = 0; i < K; i++) cumulative.push((c += weights[i] / sum));
  /** A gateway's steady stream (a flood alone is one too): its share of the rate, or all of it for a picked gateway. */
  const steadyRate = (g: number): number => {
    if (p.traffic === 'pageload') return 0;
    if (p.traffic === 'flood' && pick) return g === 0 ? rate : 0;
    return rate * (weights[g] / sum);
  };
  const mixed = p.traffic === 'pulsed' || p.traffic === 'onset';
  const floodRate = mixed ? ((p.floodLoad ?? 1000) * L) / W : 0;
  const floodRateAt = (g: number) => (pick ? (g === 0 ? floodRate : 0) : floodRate / K);
  // the flood is on from onsetAt (onset: for good; pulsed: 2 s every 120 s)
  const onsetAt = p.traffic === 'onset' ? 2 * W : 120_000;
  const nextFlood = (g: number, t: number): number => {
    const r = floodRateAt(g);
    if (!(r > 0)) return Number.POSITIVE_INFINITY;
    let at = Math.max(t, onsetAt);
    for (;;) {
      if (p.traffic === 'onset') return at + rng.exponential(r);
      const start = onsetAt + Math.floor((at - onsetAt) / 120_000) * 120_000;
      if (at < start + 2_000) {
        const x = at + rng.exponential(r);
        if (x < start + 2_000) return x;
      }
      at = start + 120_000;
    }
  };
  const roundTripMs = () => (jitterMs > 0 ? delayMs + jitterMs * net.uniform() : delayMs);

  const phase: number[] = [];
  for (let g = 0; g < K; g++) {
    phase.push(p.alignedSyncs ? 0 : rng.uniform() * D);
    if (traits.syncs !== 'never') heap.push({ t: phase[g], kind: 'sync', g, idx: 0, lane: g });
    if (steadyRate(g) > 0)
      heap.push({ t: rng.exponential(steadyRate(g)), kind: 'arrival', g, idx: 0, lane: g });
    if (mixed) heap.push({ t: nextFlood(g, 0), kind: 'flood', g, idx: 0, lane: g });
  }
  if (p.traffic === 'pageload' && rate > 0)
    heap.push({ t: rng.exponential(rate / 10), kind: 'burst', g: -1, idx: 0, lane: K });

  const decide = (g: number, t: number) => {
    let lim = lims[g];
    if (lim === null) lim = lims[g] = traits.create(fleet, t);
    const v = lim.decide(t, 1);
    let ok = v === ALLOW;
    if (v === NEED_STORE) {
      if (realSync) roundTripMs();
      // the reference keeps its own copy of the steps: the request path's members by a cast
      const path = lim as KeyLimiter & LogsAtStore & AsksStore;
      ok =
        traits.requestPath === 'log'
          ? path.onLogReply(store.logAdmit({ key: 'k', policy: fleet.policy, cost: 1 }, t), t, 1)
          : path.onAskReply(
              store.ask(
                {
                  gatewayId: ids[g],
                  key: 'k',
                  policy: fleet.policy,
                  leaseTtlMs: fleet.leaseTtlMs,
                  ask: path.askSize(1),
                  seq: seq[g],
                },
                t,
              ),
              t,
              1,
            );
    }
    decisions.push(ok ? 1 : 0);
    if (
      buckets !== null &&
      (lim as KeyLimiter & SyncsEarly).wantsEarlySync(t) &&
      inFlight[g] === null &&
      buckets[g].take(t)
    )
      syncAt(g, t, lim);
  };
  const early = traits.earlySyncs;
  const buckets = early === null ? null : ids.map(() => new EarlySyncBucket(early.burst, early.perSync, D));
  const request = (g: number): SyncRequest => ({
    gatewayId: ids[g],
    seq: seq[g],
    policy: fleet.policy,
    leaseTtlMs: fleet.leaseTtlMs,
    horizonMs: fleet.horizonMs,
    entries: [],
  });
  /** Sends g's entry at s; with a lossy network it may be lost, before or after the store applied it. */
  const send = (g: number, s: number, entry: SyncEntry, resend: boolean) => {
    if (!resend) seq[g]++;
    const isLost = loss > 0 && net.uniform() < loss;
    const landed = !isLost || net.uniform() < 0.5;
    const reply = landed ? store.syncKey(request(g), entry, s) : null;
    inFlight[g] = { entry, reply: isLost ? null : reply, resend };
    heap.push({ t: s + roundTripMs(), kind: 'reply', g, idx: 0, lane: g });
  };

  /** g's sync at t (none in flight): a lost one's entry again, else a fresh one. */
  function syncAt(g: number, t: number, lim: KeyLimiter): void {
    const resent = lost[g];
    const entry = resent ?? lim.syncEntry('k', t);
    if (entry === null) {
      if (lim.isIdle(t)) lims[g] = null;
    } else if (realSync) send(g, t, entry, resent !== null);
    else {
      seq[g]++;
      lim.applySync(store.syncKey(request(g), entry, t), t);
      if (lim.isIdle(t)) lims[g] = null;
    }
  }

  for (let e = heap.pop(); e !== undefined && e.t < end; e = heap.pop()) {
    const { t, g } = e;
    if (e.kind === 'arrival') {
      decide(g, t);
      heap.push({ t: t + rng.exponential(steadyRate(g)), kind: 'arrival', g, idx: 0, lane: g });
    } else if (e.kind === 'flood') {
      decide(g, t);
      heap.push({ t: nextFlood(g, t), kind: 'flood', g, idx: 0, lane: g });
    } else if (e.kind === 'pageload') {
      decide(g, t);
    } else if (e.kind === 'burst') {
      // 10 requests 100 ms apart, each routed on its own
      for (let i = 0; i < 10; i++) {
        const u = rng.uniform();
        let to = K - 1;
        for (let j = 0; j < K - 1; j++) {
          if (u < cumulative[j]) {
            to = j;
            break;
          }
        }
        heap.push({ t: t + i * 100, kind: 'pageload', g: to, idx: 0, lane: K });
      }
      heap.push({ t: t + rng.exponential(rate / 10), kind: 'burst', g: -1, idx: 0, lane: K });
    } else if (e.kind === 'sync') {
      heap.push({ t: phase[g] + (e.idx + 1) * D, kind: 'sync', g, idx: e.idx + 1, lane: g });
      const lim = lims[g];
      // one sync in flight per gateway: an instant that finds one is skipped
      if (lim === null || inFlight[g] !== null) continue;
      syncAt(g, t, lim);
    } else {
      // a reply arrives
      const sent = inFlight[g]!;
      inFlight[g] = null;
      const lim = lims[g]!;
      if (sent.reply === null) {
        lost[g] = sent.entry;
        continue;
      }
      lost[g] = null;
      lim.applySync(sent.reply, t);
      const fresh = sent.resend ? lim.syncEntry('k', t) : null;
      if (fresh !== null) send(g, t, fresh, false);
      else if (lim.isIdle(t)) lims[g] = null;
    }
  }
  return Uint8Array.from(decisions);
}
