/**
 * The replay fleet's keys for a design that never syncs and holds keys (split: fixed shares that
 * never leave the gateway), in place of the gateways' own maps: per key, its state on each gateway.
 * `Gateway.sync` only drops idle keys for such a design, and the walk ran it at every gateway's every
 * sync over every key held: with random or round-robin routing each key is held at many gateways, and
 * that walk was ~30 % of a replay at K = 32; a key's state, dropped a minute after its last admit
 * and made again at its next request there (a minute or more later at K = 32), was most of the rest,
 * as garbage that lives long enough to be promoted. Here the drops run at the fleet's sweeps (every
 * W/4), each gateway's at its last sync due then, and a state dropped there is kept, until the next
 * sweep, for the next key that gateway makes.
 *
 * Why the decisions and figures are the walk's (`walk: true`; test/replay/never-sync-keys.property.test.ts):
 * - Such a design's sync only drops idle keys. Its entry is null (NeverSyncs.syncEntry), so a key is
 *   dropped when `isIdle(s)` (syncEntryOf's DROP) and nothing is sent or applied; its requests never
 *   reach the store (Design.requestPath null), whose calls and keys are the figures'. A sync's other
 *   effects, the gateway's seq and last sync instant, are read only by asks and by Retry-After
 *   (`admit`), never by `allow`, which decides as `decide` here does (a cost of 1 is never over
 *   maxRequestCost, and split has no early syncs).
 * - Idle stays idle until the key's next request on that gateway: split is idle when no own admit
 *   counts, and without a request none is added. An idle state decides as a fresh one: its next
 *   request drops what stopped counting (SplitKey.live), leaving an empty log under the same share,
 *   as a fresh key's; what else it keeps (retryAt's cache) only `admit` reads. So a state the walk
 *   would have dropped at an earlier sync, kept here or given to another key, decides alike.
 * - A key requested on a gateway after that gateway's sync at s is not idle at s: a split key with no
 *   admit counting admits a request (0 + cost − 1 < L/K for any cost ≤ maxRequestCost), and an admit
 *   after s is kept by live(s). So a sweep, at each gateway's last sync, drops exactly the states the
 *   walk no longer holds after that sync, and keeps the ones it holds: after it (and at the end, the
 *   figures) the keys held are the walk's.
 * A sweep must not run a sync past a request still to be decided (a state with admits that still
 * count then would be dropped): its syncs are at or before the fleet clock's instant, and every
 * request pushed before it is decided first (ReplayFleet.holdSweeps, when key-grouped).
 */
import { requireKey, type WindowKind } from '../../config.js';
import { DESIGNS, type Design } from '../../designs/index.js';
import { ALLOW, DENY, type KeyLimiter } from '../../designs/key-limiter.js';
import { DROP, syncEntryOf } from '../../designs/key-steps.js';
import type { Gateway } from '../../gateway/gateway.js';
import { type Hashed, RecordTable } from '../../store/memory/record-table.js';
import { expiryOf } from '../../window/expiry.js';
import type { FleetSpec } from './fleet.js';
import type { SyncClock } from './key-syncs.js';

/**
 * A key held by the fleet: its states, one per gateway, are at `id` in NeverSyncKeys' flat arrays
 * (`lims`, `until`: K slots from id · K). Pooled, with its id, for the next new key
 * (`NeverSyncKeys.free`).
 */
class Track implements Hashed {
  key: string;
  /** The key's hash in the tracks' table (RecordTable sets it). */
  hash = 0;
  constructor(
    key: string,
    readonly id: number,
  ) {
    this.key = key;
  }
}

export class NeverSyncKeys {
  /**
   * The tracks by key, in the memory store's table of our own (RecordTable) in place of a Map (as
   * LiveKeys): on a log of quiet keys nearly every request is a key not held, and a Map's miss walked
   * a chain of cold entries, its delete at the sweep hashed the cold key again; `list` holds them for
   * the sweeps' walk, in no order (a dropped state decides as a fresh one: which key's spare a new
   * key takes changes nothing).
   */
  private readonly tracks = new RecordTable<Track>();
  private readonly list: Track[] = [];
  /**
   * Per track of `list`, its id, and at most the earliest `until` of its states (a lower bound): a
   * sweep whose syncs all come before it drops none of them, and passes the track by without reading
   * it. A quiet key's track, its admits counting for a window, was read at each of the 4 or 5 sweeps
   * of its life, a few cold objects each time; now at the one or two that drop its states.
   */
  private listId = new Int32Array(1024);
  private firstUntil = new Float64Array(1024);
  /** A state new on a tracked key was denied (its `until` left 0): the next sweep reads every track. */
  private unbounded = false;
  /**
   * Per track id, K slots: the key's state on each gateway (null: not held there), and when its last
   * admit there stops counting (expiryOf): until then the state is not idle, and a sweep need not
   * ask it. Flat, not two arrays per track: a track's request read four objects (the track, its
   * array, a typed array and its bytes), all cold on a log of quiet keys; now a line of each.
   */
  private lims: (KeyLimiter | null)[] = [];
  private until = new Float64Array(0);
  /**
   * Tracks let go (every state dropped), for the next new keys, kept with their ids: made anew for
   * each key, with their arrays, they were a fifth of what a replay of quiet keys allocated. Tracks
   * and ids stay at the peak of keys held (as KeyPool's objects do).
   */
  private readonly free: Track[] = [];
  /** Per gateway: states the last sweep dropped (idle), for that gateway's next new keys. */
  private readonly spare: KeyLimiter[][];
  /** Per gateway: its last sync's instant at the sweep running (NaN: none yet). */
  private readonly at: Float64Array;
  private readonly design: Design;
  private readonly K: number;
  private readonly windowMs: number;
  private readonly windowKind: WindowKind;

  constructor(
    private readonly clock: SyncClock,
    private readonly gws: readonly Gateway[],
  ) {
    this.K = clock.K;
    this.design = DESIGNS[gws[0].options.design];
    this.spare = Array.from({ length: this.K }, () => []);
    this.at = new Float64Array(this.K);
    ({ windowMs: this.windowMs, windowKind: this.windowKind } = gws[0].options.policy);
  }

  /** A request for key on gateway g at t (the fleet's syncs due before it passed): Gateway.allow's decision. */
  arrive(key: string, g: number, t: number): boolean {
    let tr = this.tracks.get(key);
    let j = -1;
    if (tr === undefined) {
      requireKey(key);
      tr = this.free.pop() ?? this.newTrack(key);
      tr.key = key;
      this.tracks.set(tr);
      j = this.list.length;
      this.list.push(tr);
      if (j === this.firstUntil.length) this.growList();
      this.listId[j] = tr.id;
    }
    const at = tr.id * this.K + g;
    const { lims, until } = this;
    let lim = lims[at];
    const fresh = lim === null;
    if (lim === null) {
      lim = lims[at] = this.spare[g].pop() ?? this.design.create(this.gws[g].options.fleet, t);
      // a new state's is 0 until its first admit
      until[at] = 0;
    }
    const v = lim.decide(t, 1);
    // the bound holds as admits come: an admit's expiry is at or after every earlier one's
    if (v === ALLOW) until[at] = expiryOf(t, this.windowMs, this.windowKind);
    if (j !== -1) this.firstUntil[j] = until[at];
    else if (fresh && v !== ALLOW) this.unbounded = true;
    if (v === ALLOW) return true;
    if (v === DENY) return false;
    throw new Error(`${lim.design} said NEED_STORE: a design that never syncs here has no request path`);
  }

  /** A track with the next id, its K slots made (not held anywhere). */
  private newTrack(key: string): Track {
    const id = this.lims.length / this.K;
    for (let g = 0; g < this.K; g++) this.lims.push(null);
    if (this.lims.length > this.until.length) {
      const next = new Float64Array(Math.max(1024, 2 * this.until.length));
      next.set(this.until);
      this.until = next;
    }
    return new Track(key, id);
  }

  /**
   * Each gateway's last sync below index `end` (indices end − K … end − 1 hold each gateway once), at
   * its instant: the states idle then are dropped, kept spare until the next sweep (the last
   * sweep's spares not taken since are let go: memory follows the keys held).
   */
  runBelow(end: number): void {
    const { K, at, spare, list, free, tracks, firstUntil, listId, lims, until } = this;
    at.fill(Number.NaN);
    for (let i = Math.max(0, end - K); i < end; i++) at[this.clock.gatewayOf(i)] = this.clock.syncAt(i);
    // the latest of those syncs (−∞: none yet, nothing dropped)
    let last = Number.NEGATIVE_INFINITY;
    for (let g = 0; g < K; g++) if (at[g] > last) last = at[g];
    const every = this.unbounded;
    this.unbounded = false;
    for (const s of spare) s.length = 0;
    let w = 0;
    for (let j = 0; j < list.length; j++) {
      const bound = firstUntil[j];
      const id = listId[j];
      // every state's last admit still counts at every sync: none is dropped
      if (bound > last && !every) {
        firstUntil[w] = bound;
        listId[w] = id;
        list[w++] = list[j];
        continue;
      }
      let held = 0;
      let first = Number.POSITIVE_INFINITY;
      for (let g = 0, x = id * K; g < K; g++, x++) {
        const lim = lims[x];
        if (lim === null) continue;
        // a gateway with no sync yet has dropped nothing (NaN: never below `until`, never dropped)
        const s = at[g];
        if (!(s < until[x]) && !Number.isNaN(s) && this.dropsAt(lim, list[j].key, s)) {
          lims[x] = null;
          spare[g].push(lim);
        } else {
          held++;
          if (until[x] < first) first = until[x];
        }
      }
      const tr = list[j];
      if (held === 0) {
        tracks.remove(tr);
        free.push(tr);
      } else {
        firstUntil[w] = first;
        listId[w] = id;
        list[w++] = tr;
      }
    }
    list.length = w;
  }

  private growList(): void {
    const n = 2 * this.firstUntil.length;
    const first = new Float64Array(n);
    first.set(this.firstUntil);
    this.firstUntil = first;
    const ids = new Int32Array(n);
    ids.set(this.listId);
    this.listId = ids;
  }

  /** Whether a sync at s drops the state, as Gateway.sync decides it (syncEntryOf). */
  private dropsAt(lim: KeyLimiter, key: string, s: number): boolean {
    const e = syncEntryOf(lim, key, s);
    if (e === DROP) return true;
    if (e !== null) throw new Error(`${lim.design} has a sync entry: it syncs, its syncs must run`);
    return false;
  }

  /** States held over all gateways now (the spares not counted: tests, memory). */
  get held(): number {
    let n = 0;
    for (const lim of this.lims) if (lim !== null) n++;
    return n;
  }
}

/**
 * Whether a fleet keeps its keys here (NeverSyncKeys): a design that never syncs and holds keys
 * (split; central-log holds none, its gateways' syncs never run); not `walk: true`.
 */
export function keptHere(spec: Pick<FleetSpec, 'design' | 'walk'>): boolean {
  const d = DESIGNS[spec.design];
  return spec.walk !== true && d.syncs === 'never' && d.holdsKeys && d.requestPath === null;
}
