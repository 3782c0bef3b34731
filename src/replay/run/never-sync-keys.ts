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
import { expiryOf } from '../../window/expiry.js';
import type { FleetSpec } from './fleet.js';
import type { SyncClock } from './key-syncs.js';

/** A key's state on each gateway. */
class Track {
  /** null: not held there */
  readonly lims: (KeyLimiter | null)[];
  /**
   * When the last admit there stops counting (expiryOf): until then the state is not idle, and a
   * sweep need not ask it (a cold object per held key and gateway was most of a sweep's time).
   */
  readonly until: Float64Array;
  constructor(K: number) {
    this.lims = Array.from({ length: K }, () => null);
    this.until = new Float64Array(K);
  }
}

export class NeverSyncKeys {
  private readonly tracks = new Map<string, Track>();
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
    if (tr === undefined) {
      tr = new Track(this.K);
      this.tracks.set(requireKey(key), tr);
    }
    const lims = tr.lims;
    let lim = lims[g];
    if (lim === null) lim = lims[g] = this.spare[g].pop() ?? this.design.create(this.gws[g].options.fleet, t);
    const v = lim.decide(t, 1);
    if (v === ALLOW) {
      tr.until[g] = expiryOf(t, this.windowMs, this.windowKind);
      return true;
    }
    if (v === DENY) return false;
    throw new Error(`${lim.design} said NEED_STORE: a design that never syncs here has no request path`);
  }

  /**
   * Each gateway's last sync below index `end` (indices end − K … end − 1 hold each gateway once), at
   * its instant: the states idle then are dropped, kept spare until the next sweep (the last
   * sweep's spares not taken since are let go: memory follows the keys held).
   */
  runBelow(end: number): void {
    const { K, at, spare } = this;
    at.fill(Number.NaN);
    for (let i = Math.max(0, end - K); i < end; i++) at[this.clock.gatewayOf(i)] = this.clock.syncAt(i);
    for (const s of spare) s.length = 0;
    this.tracks.forEach((tr, key, tracks) => {
      let held = 0;
      const { lims, until } = tr;
      for (let g = 0; g < K; g++) {
        const lim = lims[g];
        if (lim === null) continue;
        // a gateway with no sync yet has dropped nothing (NaN: never below `until`, never dropped)
        const s = at[g];
        if (!(s < until[g]) && !Number.isNaN(s) && this.dropsAt(lim, key, s)) {
          lims[g] = null;
          spare[g].push(lim);
        } else held++;
      }
      if (held === 0) tracks.delete(key);
    });
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
    this.tracks.forEach((tr) => {
      for (const lim of tr.lims) if (lim !== null) n++;
    });
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
