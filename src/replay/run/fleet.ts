/**
 * One design's fleet for a replay: K library gateways over one counting memory store, syncing at
 * origin + phase[g] + n·Δ, exactly as the many-keys simulation (src/sim/many-keys.ts) builds and
 * drives them, so a replay decides as the simulator would on the same arrivals. Syncs are run lazily:
 * `advanceTo(t)` runs every sync due at or before t (a sync at an arrival's instant runs first, as in
 * the simulator), skipping — but counting — the ones no gateway holds a key for (an idle stretch of a
 * log costs nothing, and an empty sync changes no decision).
 *
 * The synced designs run their syncs per key (KeySyncs, src/replay/run/key-syncs.ts: why the
 * decisions and figures are the same), the lease designs too (since 2026-12-06: inside key-grouped
 * chunks, with an idle key's syncs applied at once, they run ~2× faster: docs/replay.md), and
 * adaptive-early: its early syncs, sent as its requests are decided, are recorded in the schedule
 * (src/replay/run/early-schedule.ts) and each key held runs them in its place; an early sync reaches
 * across keys, so at K > 1 its chunks are checked (`beginCheck`: key-grouped, undone and decided in
 * time order when a decision wanted one; at K = 1 it sends none). The designs that never sync
 * only drop idle keys at their syncs: split's keys are kept by the fleet (NeverSyncKeys,
 * src/replay/run/never-sync-keys.ts: why the same), dropped at the sweeps; central-log's gateways
 * hold none, so none of its syncs runs. `walk: true` has every gateway's every sync walk its held
 * keys (`Gateway.sync`): the reference.
 */
import type { DesignId } from '../../config.js';
import { DESIGNS } from '../../designs/index.js';
import { Gateway } from '../../gateway/gateway.js';
import type { ReadsMode } from '../../gateway/options.js';
import { CountingStore } from '../../sim/many-keys.js';
import { Random } from '../../sim/random.js';
import { MemoryStore } from '../../store/memory-store.js';
import { KeySyncs } from './key-syncs.js';
import { keptHere, NeverSyncKeys } from './never-sync-keys.js';

export interface FleetSpec {
  design: DesignId;
  gateways: number;
  limit: number;
  windowMs: number;
  syncMs: number;
  /** Draws the sync phases: the same seed gives every design the same phases (as the simulator's). */
  seed: number;
  /** The instant the sync schedule starts from (the log's first arrival). */
  origin: number;
  /** GatewayOptions.reads (absent: the gateways' default, 'every-sync'). */
  reads?: ReadsMode;
  /** Every sync walks the gateway's held keys (`Gateway.sync`), not per key: the reference (tests). */
  walk?: boolean;
}

export class ReplayFleet {
  readonly design: DesignId;
  private readonly store: CountingStore;
  private readonly gws: Gateway[];
  readonly K: number;
  /** Δ (SyncClock.D). */
  readonly D: number;
  private readonly phase: number[];
  private readonly order: number[];
  /** Per place in a round, origin + phase of its gateway (syncAt's first two terms, added as it adds them). */
  readonly base: Float64Array;
  private syncIdx = 0;
  /** syncAt(syncIdx), kept: every arrival compares with it */
  private nextAt: number;
  /** Syncs skipped because no gateway held a key (the fleet would still have sent them). */
  private idleSyncs = 0;
  /** Keys the syncs carried (SyncStats.keys summed). */
  private syncedKeys = 0;
  /** Whether syncs are store calls of this design (a design that never syncs only drops idle keys at them). */
  private readonly syncsCount: boolean;
  /** The per-key schedule (null: the walk). */
  private readonly perKey: KeySyncs | null;
  /**
   * split (not `walk: true`): its keys, whose syncs only drop idle ones, dropped at the sweeps, each
   * gateway's at its last sync due then (NeverSyncKeys, src/replay/run/never-sync-keys.ts: why exact).
   */
  private readonly drops: NeverSyncKeys | null;
  /** Whether requests may be decided key-grouped (`keyGrouped`), and only in checked chunks (`checked`). */
  private readonly grouped: boolean;
  readonly checked: boolean;
  private readonly memory: MemoryStore;
  /** The per-key schedule's next sweep, by sync index (every W/4, at least every Δ's worth of syncs). */
  private sweepIdx = 0;
  private readonly sweepEvery: number;
  private finished = false;
  /** Key-grouped (`holdSweeps`): a sweep due waits for `sweepHeld`, once the chunk is decided. */
  private holding = false;
  private sweepWaiting = false;

  constructor(spec: FleetSpec) {
    const K = spec.gateways;
    this.design = spec.design;
    this.K = K;
    this.D = spec.syncMs;
    this.memory = new MemoryStore();
    this.store = new CountingStore(this.memory);
    this.gws = Array.from(
      { length: K },
      (_, g) =>
        new Gateway(
          {
            id: `g${g}`,
            design: spec.design,
            limit: spec.limit,
            windowMs: spec.windowMs,
            windowKind: 'sliding',
            gateways: K,
            syncMs: spec.syncMs,
            // only when set, as the many-keys simulator passes it: the options the default builds are unchanged
            ...(spec.reads === undefined ? {} : { reads: spec.reads }),
          },
          this.store,
        ),
    );
    // the simulator's draws, in its order: one phase per gateway from a fresh stream of the seed
    const rng = new Random(spec.seed);
    this.phase = Array.from({ length: K }, () => rng.uniform() * spec.syncMs);
    this.order = Array.from({ length: K }, (_, g) => g).sort(
      (a, b) => this.phase[a] - this.phase[b] || a - b,
    );
    this.base = Float64Array.from(this.order, (g) => spec.origin + this.phase[g]);
    const d = DESIGNS[spec.design];
    this.syncsCount = d.syncs !== 'never';
    this.nextAt = this.syncAt(0);
    const perKey = runsPerKey(spec);
    this.perKey = perKey ? new KeySyncs(this, this.gws, this.memory) : null;
    this.drops = keptHere(spec) ? new NeverSyncKeys(this, this.gws) : null;
    // split's keys touch nothing of each other's (NeverSyncKeys), but for the sweeps
    this.grouped = perKey || this.drops !== null;
    // early syncs (Design.earlySyncs) follow decisions and reach across keys: checked chunks (at
    // K = 1 there are none)
    this.checked = perKey && d.earlySyncs !== null && K > 1;
    this.sweepEvery = K * Math.max(1, Math.floor(spec.windowMs / 4 / spec.syncMs));
    this.sweepIdx = this.sweepEvery;
  }

  /** The gateway of sync index i (SyncClock). */
  gatewayOf(i: number): number {
    return this.order[i % this.K];
  }

  /** The instant of sync index i (SyncClock). */
  syncAt(i: number): number {
    // the round and the place without %: an index the caller holds as a double made V8 call fmod
    const K = this.K;
    const n = Math.floor(i / K);
    return this.base[i - n * K] + n * this.D;
  }

  /** Runs every sync due at or before t (per key: passes them, each key runs its own later). */
  advanceTo(t: number): void {
    // the common case, one comparison: no sync due yet
    if (this.nextAt > t) return;
    if (this.perKey !== null || this.drops !== null) {
      this.passTo(t);
      return;
    }
    for (;;) {
      const s = this.nextAt;
      if (s > t) return;
      if (this.heldKeys() === 0) {
        // nothing held anywhere: every sync up to t is empty; jump to the first after t
        let i = this.syncIdx + this.K * Math.max(0, Math.floor((t - s) / this.D) - 1);
        while (this.syncAt(i) <= t) i++;
        this.idleSyncs += i - this.syncIdx;
        this.moveTo(i);
        return;
      }
      const g = this.order[this.syncIdx % this.K];
      this.moveTo(this.syncIdx + 1);
      if (this.gws[g].keyCount === 0) this.idleSyncs++;
      else this.syncedKeys += this.gws[g].sync(s).keys;
    }
  }

  /**
   * The per-key schedule's (or split's) clock moved past t; a sweep when due (not held) runs
   * (`sweepBelow`).
   */
  private passTo(t: number): void {
    const i = this.passIndex(t);
    this.moveTo(i);
    if (i < this.sweepIdx) return;
    if (this.holding) {
      this.sweepWaiting = true;
      return;
    }
    this.sweepBelow(i);
    this.sweepIdx = i + this.sweepEvery;
  }

  /**
   * The sweep with the clock at sync index i: every key's syncs up to an instant a Δ before (no
   * request can still come before it: see KeySyncs), dropping idle keys; split's, each gateway's last
   * sync below i, which drops the keys idle then (as its every sync since its last sweep would have):
   * every request at or after the clock's instant is still to come.
   */
  private sweepBelow(i: number): void {
    if (this.drops !== null) this.drops.runBelow(i);
    // i − K: the first index at or after a Δ before the clock, every one below it before that
    else this.perKey!.sweep(Math.max(0, i - this.K), Number.POSITIVE_INFINITY);
  }

  /** The first sync index whose instant is after t (nextAt ≤ t). */
  private passIndex(t: number): number {
    let i = this.syncIdx + this.K * Math.max(0, Math.floor((t - this.nextAt) / this.D) - 1);
    while (this.syncAt(i) <= t) i++;
    return i;
  }

  /**
   * Whether this fleet's requests may be decided key by key, out of time order across keys
   * (ReplayRun's chunks): its syncs run per key (split: it has none but the drops, NeverSyncKeys), so
   * a key's calls touch only that key's state; the cross-key parts are the clock (`clockTo`, in time
   * order) and the sweeps (`holdSweeps`).
   */
  get keyGrouped(): boolean {
    return this.grouped;
  }

  /**
   * A checked chunk starts (`checked` fleets: adaptive-early at K > 1): its requests are decided
   * key-grouped, `checkpoint` saving each key's state before its first; a decision that wants an
   * early sync sends none and spoils the chunk (`spoiled`). One that sends none decides every request
   * as time order does (only an early sync reaches across keys); a spoiled one is undone (`rollback`)
   * and decided again in time order (`decideAt` in the requests' order), or it stands (`endCheck`).
   * The sweeps are held meanwhile (`holdSweeps`).
   */
  beginCheck(): void {
    const p = this.perKey!;
    p.checks!.begin(p.keySyncs);
  }

  /** Saves the key's state before the checked chunk's first request of it. */
  checkpoint(key: string): void {
    this.perKey!.checkpoint(key);
  }

  /**
   * Whether the key's requests of the checked chunk (n, at ts[j] on gateway gs[j]) cannot want an
   * early sync (KeyCheckpoints.quiet; the chunk from instant `from` to `until`): decided after every
   * key that may, unsaved.
   */
  quiet(key: string, ts: Float64Array, gs: Int32Array, n: number, from: number, until: number): boolean {
    return this.perKey!.quiet(key, ts, gs, n, from, until);
  }

  /** Whether a decision of the checked chunk wanted an early sync. */
  get spoiled(): boolean {
    return this.perKey!.checks!.spoiled;
  }

  /** The checked chunk stands. */
  endCheck(): void {
    this.perKey!.checks!.clear();
  }

  /** Undoes the checked chunk: every key it touched back as the chunk found it. */
  rollback(): void {
    this.perKey!.rollback();
  }

  /**
   * From now on a sweep falls due without running, until `sweepHeld` (key-grouped: a sweep runs
   * every key's syncs as if none came again before the clock's instant, so every request before it
   * must have been decided first).
   */
  holdSweeps(): void {
    this.holding = true;
  }

  /**
   * The sweep that fell due while held, if one did: up to a Δ before the clock's instant (split's: up
   * to the clock's instant), which no later request comes before (a later sweep than the
   * time-ordered one: it drops what that one would have, and decides nothing).
   */
  sweepHeld(): void {
    if (!this.sweepWaiting) return;
    this.sweepWaiting = false;
    this.sweepBelow(this.syncIdx);
    this.sweepIdx = this.syncIdx + this.sweepEvery;
  }

  /** Moves the clock to t (as a request at t does); returns the sync index such a request is decided after. */
  clockTo(t: number): number {
    // small enough for the engine's push to inline: nearly every request comes before the next sync
    if (this.nextAt > t && !this.finished) return this.syncIdx;
    return this.clockOn(t);
  }

  private clockOn(t: number): number {
    if (this.finished) throw new Error('ReplayFleet: a request after the figures were taken');
    this.advanceTo(t);
    return this.syncIdx;
  }

  /**
   * A request for key on gateway g at t, with the key's syncs below `end` (clockTo(t)'s) run first:
   * `arrive` split in two, for a key-grouped fleet. A key's requests come in time order; other
   * keys' may come between in any order, provided no sweep passed one of them.
   */
  decideAt(key: string, g: number, t: number, end: number, next?: number): boolean {
    if (this.finished) throw new Error('ReplayFleet: a request after the figures were taken');
    const perKey = this.perKey;
    return perKey === null ? this.drops!.arrive(key, g, t) : perKey.arrive(key, g, t, end, next);
  }

  /**
   * Whether this fleet decides a chunk faster knowing, per request, its gateway's next on the key
   * (KeySyncs.lookAhead: a lazy design's syncs are skipped up to each gateway's own next request).
   */
  get looksAhead(): boolean {
    return this.perKey !== null && !this.checked && this.perKey.looksAhead;
  }

  /** A chunk is decided with its look-ahead; no later request comes before `end` (KeySyncs.lookAhead). */
  lookAhead(end: number): void {
    this.perKey!.lookAhead(end);
  }

  stopLookAhead(): void {
    this.perKey!.stopLookAhead();
  }

  /** Of the key's n gateways gs with a request in the chunk, each one's first at ts (KeySyncs.expect). */
  expect(key: string, gs: Int32Array, ts: Float64Array, n: number): void {
    this.perKey!.expect(key, gs, ts, n);
  }

  private moveTo(i: number): void {
    this.syncIdx = i;
    this.nextAt = this.syncAt(i);
  }

  private heldKeys(): number {
    let n = 0;
    for (const gw of this.gws) n += gw.keyCount;
    return n;
  }

  /** One request: syncs due first, then the gateway's decision. */
  arrive(key: string, g: number, t: number): boolean {
    if (this.finished) throw new Error('ReplayFleet: a request after the figures were taken');
    this.advanceTo(t);
    const perKey = this.perKey;
    if (perKey !== null) return perKey.arrive(key, g, t, this.syncIdx);
    const drops = this.drops;
    return drops === null ? this.gws[g].allow(key, t) : drops.arrive(key, g, t);
  }

  /** The per-key schedule's syncs, every one due so far (once the stream has ended: the figures). */
  private settle(): void {
    if (this.finished) return;
    if (this.drops !== null) {
      this.finished = true;
      this.drops.runBelow(this.syncIdx);
      return;
    }
    if (this.perKey === null) return;
    this.finished = true;
    this.perKey.sweep(this.syncIdx, Number.POSITIVE_INFINITY, true);
  }

  /** Keys held over all gateways now (the replay's memory, for tests). */
  get keysHeld(): number {
    if (this.drops !== null) return this.drops.held;
    return this.perKey === null ? this.heldKeys() : this.perKey.held;
  }

  /** Keys the store holds now. */
  get storeKeys(): number {
    return this.store.keyCount;
  }

  /** Store calls on requests' path so far (central-log's logAdmit, leases-ask's asks). */
  requestPathCalls(): number {
    return this.store.logAdmits + this.store.asks + (this.perKey === null ? 0 : this.perKey.askCalls);
  }

  /** Keys carried by the syncs so far, early ones too (0 for a design whose syncs are not store calls). */
  keySyncs(): number {
    this.settle();
    if (!this.syncsCount) return 0;
    if (this.perKey !== null) return this.perKey.keySyncs;
    let early = 0;
    for (const gw of this.gws) early += gw.earlySyncKeys;
    return this.syncedKeys + early;
  }

  /** Early syncs sent so far (Design.earlySyncs; tests). */
  earlySyncs(): number {
    if (this.perKey !== null) return this.perKey.earlySyncs;
    let n = 0;
    for (const gw of this.gws) n += gw.earlySyncs;
    return n;
  }

  /** Store calls so far: syncs (if this design's syncs are store calls) and request-path calls. */
  storeCalls(): number {
    this.settle();
    // per key, every sync instant passed is one store call (KeySyncs), and so is every early sync
    const sent =
      this.perKey === null ? this.store.syncCalls + this.idleSyncs : this.syncIdx + this.perKey.earlySyncs;
    const syncs = this.syncsCount ? sent : 0;
    return syncs + this.requestPathCalls();
  }
}

/**
 * Whether a fleet runs its syncs per key (KeySyncs): every synced design (central-log and the designs
 * that never sync have no syncs); not `walk: true`.
 */
export function runsPerKey(spec: Pick<FleetSpec, 'design' | 'walk'>): boolean {
  const d = DESIGNS[spec.design];
  return spec.walk !== true && d.syncs !== 'never' && d.requestPath !== 'log';
}
