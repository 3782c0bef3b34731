import type { EventEmitter } from 'node:events';
import { DESIGNS } from '../../designs/index.js';
import type { KeyLimiter } from '../../designs/key-limiter.js';
import type { AsyncStore, SyncEntry } from '../../store/contract.js';
import { Slicer } from '../../util/slicer.js';
import { mergeRuns, NO_RUNS, runTotal } from '../../window/runs.js';
import { learnGateways, liveWithinMs, type ResolvedOptions } from '../options.js';
import type { AsyncGatewayEvents } from './async-gateway.js';
import type { IdClaims } from './duplicate-id.js';
import type { FailureCause } from './failure-cause.js';
import type { Fallback } from './fallback.js';
import type { KeyTable } from './key-table.js';
import type { LogVoids } from './log-voids.js';
import type { StoreClock } from './store-clock.js';
import type { StoreHealth } from './store-health.js';
import { Entries, joinPart, type Part, splitPart } from './sync-parts.js';
import { withTimeout } from './timeout.js';

/** What the sync loop works with: the gateway's store, clocks, key table and events. */
export interface SyncLoopDeps {
  id: string;
  incarnation: string;
  options: ResolvedOptions;
  storeTimeoutMs: number;
  store: AsyncStore;
  /** The local clock: read when a sync starts, sends and is answered. */
  clock: () => number;
  /** Uniform in [0, 1): the timer's phase. */
  random: () => number;
  storeClock: StoreClock;
  health: StoreHealth;
  table: KeyTable;
  claims: IdClaims;
  voids: LogVoids;
  events: EventEmitter<AsyncGatewayEvents>;
  /** An answered part's limiter admits, per entry: the store has them now. */
  confirmed: (own: number[]) => void;
  /** gateways 'auto': a heartbeat changed K (options.fleet.gateways). */
  gatewaysChanged?: () => void;
}

type Timer = { kind: 'timeout' | 'interval'; handle: ReturnType<typeof setTimeout> };

/**
 * The sync timer and everything a sync does (see AsyncGateway's class comment: Syncs in parts,
 * Retried parts, Incarnations): every Δ at a random phase, one sync in flight at a time; each round
 * takes back failed central-log calls, resends the unanswered parts of earlier syncs, then builds a
 * new batch of every other key (numbered first: asks from then on carry its seq), cuts it into parts
 * sized from the store's recent speed and sends them two at a time; answers go to the limiters and
 * outage records, and set the expiry horizon of the next sync from the cycles seen.
 */
export class SyncLoop {
  /** Syncs built by this incarnation; an ask carries the last one (see builtSeq). */
  private seq = 0;
  /** The last sync attempt's start, on decision time (for Retry-After). */
  lastSyncStartAt = Number.NaN;
  /** Parts of earlier syncs not answered yet, resent first, in order (see sendParts). */
  private frozen: Part[] = [];
  /** The keys of `frozen`: not put in a newer sync until their part is answered. */
  private unresolved = new Set<string>();
  /** Recent parts' round trips (ms) and keys, a ring: sizes the parts (see partKeys). */
  private readonly partSamples: { ms: number; keys: number }[] = [];
  private partNext = 0;
  /** Where the next round's reads of keys with room to spare begin (see takeReads). */
  private readFrom = 0;
  private inflight: Promise<boolean> | null = null;
  private timer: Timer | null = null;
  /** Sync requests (parts) answered; failed, by cause (see FailureCause). */
  syncs = 0;
  syncTimeouts = 0;
  syncRefusals = 0;
  syncErrors = 0;
  /**
   * Store time of the first answer of the last round (runSync); NaN if a part of it failed (the cycle
   * that follows is an outage's, not a sync's). A key answered in that round's first part may be in
   * this round's last: its next reply comes that long after.
   */
  private prevRoundReply = Number.NaN;
  /** The same for the round running now. */
  private roundReply = Number.NaN;
  private roundFailed = false;
  /** The last CYCLE_SAMPLES sync cycles, ms: from a reply's store time to the end of applying the next reply, a ring. */
  private readonly cycles: number[] = [];
  private cycleNext = 0;
  /**
   * gateways 'auto': this round's heartbeat, sent beside its sync parts. Settles (never rejects) once
   * it has set K or failed (K then stays); the round's replies are applied only after it, so every
   * key answered in a round decides with the fleet's count as of that round.
   */
  private beat: Promise<void> | null = null;
  /** Heartbeats that failed or timed out (K kept its last value). */
  heartbeatFailures = 0;
  /** Store time of the first heartbeat's count (see learnGateways). */
  private firstCountAt = Number.NaN;

  private readonly id: string;
  private readonly incarnation: string;
  private readonly options: ResolvedOptions;
  private readonly storeTimeoutMs: number;
  private readonly store: AsyncStore;
  private readonly clock: () => number;
  private readonly random: () => number;
  private readonly storeClock: StoreClock;
  private readonly health: StoreHealth;
  private readonly table: KeyTable;
  private readonly claims: IdClaims;
  private readonly voids: LogVoids;
  private readonly events: EventEmitter<AsyncGatewayEvents>;
  private readonly confirmed: (own: number[]) => void;
  private readonly gatewaysChanged: () => void;

  constructor(d: SyncLoopDeps) {
    this.id = d.id;
    this.incarnation = d.incarnation;
    this.options = d.options;
    this.storeTimeoutMs = d.storeTimeoutMs;
    this.store = d.store;
    this.clock = d.clock;
    this.random = d.random;
    this.storeClock = d.storeClock;
    this.health = d.health;
    this.table = d.table;
    this.claims = d.claims;
    this.voids = d.voids;
    this.events = d.events;
    this.confirmed = d.confirmed;
    this.gatewaysChanged = d.gatewaysChanged ?? (() => {});
  }

  /** The seq of the last sync built (0 before the first): a request-path ask is tagged with it. */
  get builtSeq(): number {
    return this.seq;
  }

  /** Decision time for a sync's own bookkeeping (see StoreClock.bookAt). */
  private bookNow(): number {
    return this.storeClock.bookAt(this.clock());
  }

  /** Starts the sync timer: every Δ, first at a random phase in [0, Δ) so the fleet's syncs spread out. */
  start(): void {
    if (this.timer !== null) return;
    const { syncMs } = this.options.fleet;
    const phase = this.random() * syncMs;
    const first = setTimeout(() => {
      this.tick();
      const every = setInterval(() => this.tick(), syncMs);
      every.unref?.();
      this.timer = { kind: 'interval', handle: every };
    }, phase);
    first.unref?.();
    this.timer = { kind: 'timeout', handle: first };
  }

  get running(): boolean {
    return this.timer !== null;
  }

  /** A sync round is in flight: a tick now would be skipped. */
  get busy(): boolean {
    return this.inflight !== null;
  }

  tick(): void {
    // one sync in flight at a time: a tick that finds one running skips
    if (this.inflight !== null) return;
    this.syncNow().catch((error: unknown) => {
      this.syncErrors++;
      this.events.emit('syncError', { seq: this.seq, keys: 0, latencyMs: 0, reason: 'error', error });
    });
  }

  /**
   * One sync now, or the one already in flight. Resolves true when the store answered every batch it
   * was sent (a resend of a failed batch first, then the fresh one); never rejects on store errors.
   */
  syncNow(): Promise<boolean> {
    if (this.inflight !== null) return this.inflight;
    const p = this.runSync(false).finally(() => {
      this.inflight = null;
    });
    this.inflight = p;
    return p;
  }

  /**
   * Stops the timer, then one last sync that pushes every pending admit and asks for nothing, so the
   * store gets this gateway's unused lease slots back now rather than at the lease TTL. Resolves true
   * if the store answered; if not, the slots come back by themselves after the TTL.
   */
  async stop(): Promise<boolean> {
    if (this.timer !== null) {
      if (this.timer.kind === 'timeout') clearTimeout(this.timer.handle);
      else clearInterval(this.timer.handle);
      this.timer = null;
    }
    while (this.inflight !== null) await this.inflight;
    const p = this.runSync(true).finally(() => {
      this.inflight = null;
    });
    this.inflight = p;
    return p;
  }

  /**
   * One round: the parts of earlier syncs still unanswered first, then a new sync of every other key.
   * If nothing at all was answered, the store is away: no new sync is built (it would only time out
   * too), and idle keys are swept instead. Resolves true when every part sent was answered.
   */
  private async runSync(final: boolean): Promise<boolean> {
    this.beat = this.options.autoGateways ? this.heartbeat(final) : null;
    try {
      return await this.round(final);
    } finally {
      if (this.beat !== null) await this.beat;
    }
  }

  /**
   * gateways 'auto': one heartbeat (the last one, `leaving`, takes this gateway out of the count at
   * once); its count becomes K. A failed one leaves K as it was: the fail mode covers a store that is away.
   */
  private async heartbeat(leaving: boolean): Promise<void> {
    const heartbeat = this.store.heartbeat!.bind(this.store);
    const live = liveWithinMs(this.options, this.storeTimeoutMs);
    const beat = { gatewayId: this.incarnation, policy: this.options.policy, liveWithinMs: live, leaving };
    const r = await withTimeout(
      () => heartbeat(beat, this.bookNow()),
      this.storeTimeoutMs,
      undefined,
      'renew',
    );
    if (!r.ok) {
      this.heartbeatFailures++;
      return;
    }
    if (leaving) return;
    const { now } = r.value;
    if (Number.isNaN(this.firstCountAt)) this.firstCountAt = now;
    if (learnGateways(this.options, r.value.live, now - this.firstCountAt, live)) this.gatewaysChanged();
  }

  /** The body of runSync: see there. */
  private async round(final: boolean): Promise<boolean> {
    if (this.voids.pending > 0) await this.sendVoids();
    this.claims.startRound(final);
    this.prevRoundReply = this.roundFailed ? Number.NaN : this.roundReply;
    this.roundReply = Number.NaN;
    this.roundFailed = false;
    let answered = 0;
    if (this.frozen.length > 0) {
      const parts = this.resendParts(this.frozen);
      this.frozen = [];
      const r = await this.sendParts(parts);
      answered += r.answered;
      if (r.answered === 0) {
        this.freeze(r.left);
        await this.sweep();
        return false;
      }
      this.freeze(r.left);
    }
    const r = await this.sendParts(this.cutParts(await this.buildBatch(final)));
    answered += r.answered;
    this.freeze(this.frozen.concat(r.left));
    if (answered === 0) await this.sweep();
    return this.frozen.length === 0;
  }

  /** Keeps unanswered parts for the next round; their keys stay out of newer syncs until then. */
  private freeze(parts: Part[]): void {
    this.frozen = parts;
    this.unresolved = new Set();
    for (const p of parts) for (const e of p.req.entries) this.unresolved.add(e.key);
  }

  /**
   * Takes back the central-log calls that failed or timed out, before the sync that brings the
   * gateway back to the store: a call that landed anyway stops counting, and one still on its way is
   * refused when it lands. What the gateway admitted meanwhile reaches the store through its outage
   * records, so the store ends up counting exactly what was admitted. Kept for the next sync if the
   * store does not answer (the sync goes ahead regardless).
   */
  private async sendVoids(): Promise<void> {
    const voids = this.voids.take();
    const r = await withTimeout(
      () => this.store.voidLogAdmits(this.incarnation, this.options.policy, voids, this.bookNow()),
      this.storeTimeoutMs,
      this.store,
      'renew',
    );
    const failed = this.voids.settled(voids, r);
    if (failed === null) return;
    this.events.emit('storeCallError', {
      call: 'voidLogAdmits',
      key: failed.key,
      reason: failed.cause,
      error: failed.error,
    });
  }

  /**
   * How far ahead the next sync's replies list expiries. A key ages its view with them until the next
   * reply is applied; past the horizon it keeps the rest of the count, erring towards rejecting. A sync
   * of many keys (thousands of an attacker's, say) takes longer to build, run and apply than Δ, and
   * a fixed horizon of a few Δ then runs out before the next reply lands: every key, the real ones
   * too, rejects admits it would take with a timely view. So the horizon is at least twice the longest
   * of the last few cycles (see noteCycle), up to W (where everything is listed), and never below
   * `horizonMs`. A longer list is only more of the truth: it
   * never admits what the store would refuse.
   */
  private horizonMs(): number {
    const { fleet, policy } = this.options;
    let longest = 0;
    for (const c of this.cycles) if (c > longest) longest = c;
    return Math.max(fleet.horizonMs, Math.min(policy.windowMs, Math.ceil(CYCLE_MARGIN * longest)));
  }

  /**
   * A cycle sample: from the last round's first reply's store time to now, when this part applied its reply; and at
   * least this sync's own duration (build, round trip, apply) plus Δ, the wait for the next tick: what
   * the next cycle will take if the next sync is as slow. That one is known from the first sync on, so
   * a key table that grows at once (an attack from the start) has its horizon sized by its first sync.
   */
  private noteCycle(replyNow: number, builtFrom: number): void {
    if (!Number.isFinite(replyNow)) return;
    const now = this.bookNow();
    const next = now - builtFrom + this.options.fleet.syncMs;
    const cycle = Number.isNaN(this.prevRoundReply) ? next : Math.max(next, now - this.prevRoundReply);
    const ring = this.cycles;
    if (ring.length < CYCLE_SAMPLES) ring.push(cycle);
    else ring[this.cycleNext] = cycle;
    this.cycleNext = (this.cycleNext + 1) % CYCLE_SAMPLES;
    if (Number.isNaN(this.roundReply)) this.roundReply = replyNow;
  }

  /**
   * While the store is away no batch is built, and building one is what normally drops idle keys; without
   * this, a long outage with many distinct keys would hold every key it ever saw.
   */
  private async sweep(): Promise<void> {
    await this.table.sweep(this.bookNow());
  }

  /**
   * Walks every held key in slices (Slicer), so a large key table never holds the event loop.
   * Requests decided between slices are safe: a key already walked keeps its new admits for the next
   * batch (its limiter holds them apart from the ones in flight), a key not yet walked sends them in
   * this one, and a new key joins the walk at the end of the map. What would break it is a key moving
   * behind the walk and being met twice, so keys are not reordered meanwhile (`building`).
   *
   * Keys of unanswered parts (`unresolved`) are left out: their pushes are still in flight, and a
   * newer seq must not reach a key before the resend of the older one.
   *
   * Order (issue 19: a key flood must not starve honest keys): entries that push admits first, so
   * the parts sent first (and most likely answered) carry them, and among them the keys near their
   * limit (see `half`: a busy key, not a flood's one-admit key) first; then entries that release or
   * ask; then the reads of keys near their limit. The read of a key with room to spare and nothing
   * to push (a flood's key, or any quiet key; designs whose syncs are 'lazy') is all that may wait: a
   * round takes at most what fits in ROUND_PARTS parts of them (see readBudget), in turns (`readFrom`),
   * so a round's length stays near the store timeout however many keys are held, and a flood only
   * makes the flooded keys' views staler. Such a key's entry would carry nothing, so leaving it out
   * changes nothing but the age of its view.
   */
  private async buildBatch(final: boolean): Promise<Part> {
    const now = this.bookNow();
    // numbered before any key is walked: an ask sent from here on carries this seq, so this sync
    // (which releases the grants tagged below it) never hands back a grant the limiter may spend
    const seq = ++this.seq;
    const pushing = new Entries();
    const pushingFar = new Entries();
    const rest = new Entries();
    const reads = new Entries();
    // a key "near" its limit (at most half of it left, as this gateway sees it) is a busy one, whose
    // decisions a stale view may turn; a flood's one-admit key is far from it
    const half = this.options.policy.limit / 2;
    const add = (e: SyncEntry, owner: KeyLimiter | null, fb: Fallback | null, own: number): void => {
      // the last sync asks for nothing: a stopping gateway hands every slot back
      const entry = final && e.ask > 0 ? { ...e, ask: 0 } : e;
      if (e.admits.length > 0)
        (owner !== null && owner.remaining(now) <= half ? pushing : pushingFar).add(entry, owner, fb, own);
      else if (e.read && !e.release && e.ask === 0 && fb === null) reads.add(entry, owner, fb, own);
      else rest.add(entry, owner, fb, own);
    };
    // a design whose sync with nothing to push only reads ('lazy') lets a far key's read wait: its
    // entry is taken only if its turn comes (see takeReads), so a waiting key costs the walk no entry
    const deferrable = !final && DESIGNS[this.options.design].syncs === 'lazy';
    const far: { key: string; lim: KeyLimiter }[] = [];
    const slicer = new Slicer();
    const taken = new Set<Fallback>();
    const unresolved = this.unresolved;
    const skip = unresolved.size > 0;
    const table = this.table;
    table.building = true;
    try {
      for (const [key, lim] of table.limiters) {
        if (slicer.due()) await slicer.pause();
        if (skip && unresolved.has(key)) continue;
        if (
          deferrable &&
          lim.unsyncedAdmits() === 0 &&
          lim.remaining(now) > half &&
          !table.fallbacks.has(key)
        ) {
          far.push({ key, lim });
          continue;
        }
        const own = lim.syncEntry(key, now);
        const fb = table.fallbacks.get(key) ?? null;
        const extra = fb === null ? NO_RUNS : fb.take(now);
        if (fb !== null) taken.add(fb);
        if (own === null && extra.t.length === 0) {
          if (lim.isIdle(now)) table.limiters.delete(key);
          continue;
        }
        let e: SyncEntry;
        if (own === null) e = { key, admits: extra.t, counts: extra.n, read: false, release: false, ask: 0 };
        else if (extra.t.length === 0) e = own;
        else {
          // a copy: the limiter's in-flight list must not learn about admits it did not make
          const all = mergeRuns(own.admits, own.counts, extra.t, extra.n);
          e = { ...own, admits: all.times, counts: all.counts };
        }
        add(e, own === null ? null : lim, fb, own === null ? 0 : runTotal(own.admits, own.counts));
      }
    } finally {
      table.building = false;
    }
    // outage records of keys without a limiter; one taken above is in this batch already, even if
    // its key has left `keys` since
    for (const [key, fb] of table.fallbacks) {
      if (slicer.due()) await slicer.pause();
      if (table.limiters.has(key) || taken.has(fb) || (skip && unresolved.has(key))) continue;
      const extra = fb.take(now);
      if (extra.t.length > 0)
        add({ key, admits: extra.t, counts: extra.n, read: false, release: false, ask: 0 }, null, fb, 0);
      else if (fb.isIdle(now)) table.fallbacks.delete(key);
    }
    const { policy, fleet } = this.options;
    pushing.append(pushingFar);
    pushing.append(rest);
    pushing.append(reads);
    await this.takeReads(far, this.readBudget(pushing.entries.length), now, pushing);
    // an empty sync still goes out: it is the heartbeat that tells the runtime the store is back
    return {
      req: {
        gatewayId: this.incarnation,
        seq,
        policy,
        leaseTtlMs: fleet.leaseTtlMs,
        horizonMs: this.horizonMs(),
        entries: pushing.entries,
      },
      owners: pushing.owners,
      fallbacks: pushing.fallbacks,
      own: pushing.own,
      attempts: 0,
      timedOut: false,
      builtFrom: now,
    };
  }

  /**
   * How many reads of keys with room to spare a round of `others` other entries takes: what is left
   * of ROUND_PARTS parts, and at least one part's worth, so every such key is read in its turn even
   * while pushes fill the round.
   */
  private readBudget(others: number): number {
    const part = this.partKeys();
    return Math.max(part, ROUND_PARTS * part - others);
  }

  /**
   * Takes the entries of up to `max` of the `far` keys into `to`, in turns: from where the last round
   * stopped (`readFrom`), round the list. The others wait for a later round. A key dropped or replaced
   * since the walk is passed over; one that admitted since pushes now, as a key the walk had not
   * reached yet would.
   */
  private async takeReads(
    far: { key: string; lim: KeyLimiter }[],
    max: number,
    now: number,
    to: Entries,
  ): Promise<void> {
    const n = far.length;
    const take = Math.min(n, max);
    const from = n === 0 ? 0 : this.readFrom % n;
    const slicer = new Slicer();
    for (let j = 0; j < take; j++) {
      if (slicer.due()) await slicer.pause();
      const { key, lim } = far[(from + j) % n];
      if (this.table.limiters.get(key) !== lim) continue;
      const e = lim.syncEntry(key, now);
      if (e !== null) to.add(e, lim, null, runTotal(e.admits, e.counts));
    }
    this.readFrom = from + take;
  }

  /**
   * Keys per sync request, so a part takes about PART_SHARE of storeTimeoutMs: a part's round trip is
   * taken as a fixed cost (the shortest recent part under MIN_SAMPLE_KEYS keys, else 0) plus a time
   * per key (the mean of recent parts' past that cost, over parts of at least MIN_SAMPLE_KEYS keys; a
   * timed-out part counts as taking the whole timeout, and its resend is halved). Before any
   * measurement, FIRST_PART_KEYS.
   */
  partKeys(): number {
    const ring = this.partSamples;
    // the fixed cost from small parts only: parts of similar sizes would pass their whole time for it
    let fixed = Number.POSITIVE_INFINITY;
    let shortest = Number.POSITIVE_INFINITY;
    for (const x of ring) {
      if (x.keys < MIN_SAMPLE_KEYS && x.ms < fixed) fixed = x.ms;
      if (x.ms < shortest) shortest = x.ms;
    }
    fixed = Number.isFinite(fixed) ? Math.min(fixed, shortest) : 0;
    let perKey = 0;
    let largest = 0;
    let n = 0;
    for (const x of ring) {
      if (x.keys < MIN_SAMPLE_KEYS) continue;
      perKey += (x.ms - fixed) / x.keys;
      largest = Math.max(largest, x.keys);
      n++;
    }
    if (n === 0) return FIRST_PART_KEYS;
    perKey /= n;
    // no time beyond the fixed cost seen yet: grow by doubling, not at once to the cap
    if (perKey === 0) return Math.min(MAX_PART_KEYS, 2 * largest);
    const keys = Math.floor((PART_SHARE * this.storeTimeoutMs - fixed) / perKey);
    return Math.max(MIN_PART_KEYS, Math.min(MAX_PART_KEYS, keys));
  }

  private notePart(ms: number, keys: number): void {
    const ring = this.partSamples;
    if (ring.length < PART_SAMPLES) ring.push({ ms, keys });
    else ring[this.partNext] = { ms, keys };
    this.partNext = (this.partNext + 1) % PART_SAMPLES;
  }

  /** Cuts a sync into parts of at most partKeys() keys, in order; entries of one key stay together. */
  private cutParts(whole: Part): Part[] {
    return splitPart(whole, this.partKeys());
  }

  /**
   * Unanswered parts for their resend: no larger than parts are now, a timed-out one halved (once:
   * the halves have not timed out at their size), and neighbours of one seq joined again up to that
   * size, so a long outage does not leave the table in ever smaller pieces.
   */
  private resendParts(parts: Part[]): Part[] {
    const size = this.partKeys();
    const out: Part[] = [];
    const halves = new Set<Part>();
    for (const p of parts) {
      const n = p.req.entries.length;
      if (p.timedOut) {
        for (const q of splitPart(p, Math.min(size, Math.ceil(n / 2)))) {
          q.timedOut = false;
          halves.add(q);
          out.push(q);
        }
        continue;
      }
      for (const q of n <= size ? [p] : splitPart(p, size)) {
        const last = out.length > 0 ? out[out.length - 1] : null;
        const joins =
          last !== null &&
          !halves.has(last) &&
          last.req.seq === q.req.seq &&
          last.req.entries.length + q.req.entries.length <= size;
        if (joins) joinPart(last, q);
        else out.push(q);
      }
    }
    return out;
  }

  /**
   * Sends parts as a pipeline: up to PIPELINE_PARTS in flight, each with its own timeout, in order.
   * After a part fails the rest are not sent (the store is likely away or slow); they and the failed
   * ones are `left`, for the next round, in their order.
   */
  private async sendParts(parts: Part[]): Promise<{ answered: number; left: Part[] }> {
    const ok = new Array<boolean>(parts.length).fill(false);
    const running = new Set<Promise<void>>();
    let stopped = false;
    let answered = 0;
    for (let i = 0; i < parts.length && !stopped; i++) {
      while (running.size >= PIPELINE_PARTS) await Promise.race(running);
      if (stopped) break;
      const settle = (r: boolean) => {
        running.delete(p);
        ok[i] = r;
        if (r) answered++;
        else stopped = true;
      };
      // a fault while applying a reply keeps the part for its resend, like a failed call
      const p: Promise<void> = this.send(parts[i]).then(settle, (error: unknown) => {
        this.syncErrors++;
        this.events.emit('syncError', {
          seq: parts[i].req.seq,
          keys: parts[i].req.entries.length,
          latencyMs: 0,
          reason: 'error',
          error,
        });
        settle(false);
      });
      running.add(p);
    }
    await Promise.all(running);
    return { answered, left: parts.filter((_, i) => !ok[i]) };
  }

  private async send(part: Part): Promise<boolean> {
    const retry = part.attempts > 0;
    part.attempts++;
    // the round's first request carries this incarnation's claim on the id (one small store write)
    const claim = this.claims.take();
    const req = claim ? { ...part.req, incarnationOf: this.id } : part.req;
    const t0 = this.clock();
    const sentNow = this.bookNow();
    this.lastSyncStartAt = sentNow;
    // off the request path: a timer made late by a busy loop renews the part's timeout (withTimeout)
    const r = await withTimeout(
      () => this.store.sync(req, sentNow),
      this.storeTimeoutMs,
      this.store,
      'renew',
    );
    const t1 = this.clock();
    const keys = req.entries.length;
    let failure: { reason: FailureCause; error?: unknown } | null = null;
    if (!r.ok) failure = { reason: r.cause, error: r.error };
    else if (r.value.replies.length !== keys) {
      const error = new Error(`store answered ${r.value.replies.length} replies to a sync of ${keys} keys`);
      failure = { reason: 'error', error };
    }
    if (failure !== null || !r.ok) {
      // kept: the resend carries this very seq and these entries (see the class comment)
      // the part waited out the whole timeout (refused, too, when its client queued it offline)
      part.timedOut = !r.ok && r.timedOut;
      this.roundFailed = true;
      this.health.failing = true;
      const reason = failure?.reason ?? 'error';
      if (part.timedOut) this.notePart(this.storeTimeoutMs, keys);
      if (reason === 'timeout') this.syncTimeouts++;
      else if (reason === 'refused') this.syncRefusals++;
      else this.syncErrors++;
      this.events.emit('syncError', {
        seq: req.seq,
        keys,
        latencyMs: t1 - t0,
        reason,
        error: failure?.error,
      });
      return false;
    }
    part.timedOut = false;
    this.notePart(t1 - t0, keys);
    if (this.beat !== null) await this.beat;
    this.storeClock.learn(r.value.now, t0, t1);
    const now = this.bookNow();
    const { replies } = r.value;
    const slicer = new Slicer();
    for (let i = 0; i < keys; i++) {
      if (slicer.due()) await slicer.pause();
      const lim = part.owners[i];
      const key = req.entries[i].key;
      if (lim !== null) {
        lim.applySync(this.storeClock.withLapseMargin(replies[i]), now);
        this.table.dropIfIdle(key, lim, now);
      }
      const fb = part.fallbacks[i];
      if (fb !== null) {
        fb.confirm();
        this.table.dropOutageIfIdle(key, fb, now);
      }
    }
    this.confirmed(part.own);
    this.table.full = false;
    this.noteCycle(r.value.now, part.builtFrom);
    this.health.answered(t1);
    if (claim) this.noteClaim(r.value.previousIncarnation);
    this.syncs++;
    this.events.emit('sync', { seq: req.seq, keys, latencyMs: t1 - t0, retry });
    return true;
  }

  /** The store's answer to this incarnation's claim on the id: the incarnation it replaced (see IdClaims). */
  private noteClaim(previous: string | null | undefined): void {
    const other = this.claims.answered(previous);
    if (other !== null)
      this.events.emit('duplicateId', { id: this.id, incarnation: this.incarnation, other });
  }
}

/** A sync request (part) is sized to take about this share of storeTimeoutMs (see partKeys). */
const PART_SHARE = 0.25;
/** Parts in flight at once: the next is written while the store works on one (a pipeline). */
const PIPELINE_PARTS = 2;
/**
 * A round's reads of keys with room to spare fill it up to this many parts (about one store timeout
 * of store time, see PART_SHARE): the rest wait for a later round (see buildBatch).
 */
const ROUND_PARTS = 4;
/** Keys per part before the store's speed is known. */
const FIRST_PART_KEYS = 1_000;
const MIN_PART_KEYS = 16;
const MAX_PART_KEYS = 20_000;
/** Parts with fewer keys say little about the time per key (their time is mostly the round trip). */
const MIN_SAMPLE_KEYS = 16;
/** Recent parts the size is taken from. */
const PART_SAMPLES = 8;
/** Sync cycles the expiry horizon is sized from (the longest, see horizonMs). */
const CYCLE_SAMPLES = 8;
/** The horizon covers this many times the longest recent cycle: the next one may run longer. */
const CYCLE_MARGIN = 2;
