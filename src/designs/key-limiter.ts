import type { DesignId, Policy } from '../config.js';
import type { AskReply, LogAdmitReply, SyncEntry, SyncReply } from '../store/contract.js';

/** What a local decision asks for. NEED_STORE: this request must wait on a store round trip. */
export const DENY = 0;
export const ALLOW = 1;
export const NEED_STORE = 2;
export type Verdict = typeof DENY | typeof ALLOW | typeof NEED_STORE;

/** Everything a design needs to know about the fleet it runs in. */
export interface FleetParams {
  readonly policy: Policy;
  /**
   * K: gateways sharing the limit. With `gateways: 'auto'` the gateway that owns these params sets it
   * from each sync round's count of live gateways (one K per gateway, for all its keys): a design
   * reads it where it uses it, never keeps a copy past the sync that may change it.
   */
  readonly gateways: number;
  /** Δ: the sync interval. */
  readonly syncMs: number;
  /** How long a grant stays valid without a sync (lease designs). */
  readonly leaseTtlMs: number;
  /** How far ahead a sync reply lists expiries. */
  readonly horizonMs: number;
  /**
   * A quiet key is read only after a request here (GatewayOptions.reads 'on-request', for a design
   * whose Design.readsFollowRequests): absent or false, every held key is read at every sync.
   */
  readonly readsOnRequest?: boolean;
}

/**
 * One key's decision state on one gateway: a small state machine driven by `now`, with no clock,
 * no timers and no I/O. The gateway runtime and the simulator both drive these same objects.
 *
 * Protocol:
 * - `decide(now, cost)` → ALLOW (already counted), DENY, or NEED_STORE; on NEED_STORE the caller
 *   makes the design's request-path store call and hands the reply to `onLogReply` (LogsAtStore) /
 *   `onAskReply` (AsksStore), or (leases-ask, an ask for the key already in flight) waits for that
 *   call and `decideAgain`s. Only designs with a request path (Design.requestPath) have those.
 * - `noteRejected(n, now)`: n arrivals were rejected without calling decide (the simulator's skip).
 * - `nextChangeAt(now)`: while decide says DENY, the earliest instant it might not, absent a sync.
 * - `retryAt(now, cost, syncAt)`: while decide says DENY, the earliest instant it would admit `cost`
 *   on what this gateway knows (Retry-After).
 * - `syncEntry(key, now, into?)` takes what this key tells the store at a sync (null: nothing), written
 *   into `into` when given (a caller that hands each entry to the store before building the next), and
 *   `applySync(reply, now)` takes the answer; `syncFailed(now)` puts the taken pushes back.
 *
 * The core every design has; what only some have is a capability of its own, found with its guard:
 * LogsAtStore (central-log), AsksStore (the lease designs), SyncsEarly (Design.earlySyncs).
 */
export interface KeyLimiter {
  readonly design: DesignId;
  decide(now: number, cost: number): Verdict;
  noteRejected(n: number, now: number): void;
  nextChangeAt(now: number): number;
  /**
   * The earliest instant >= now at which `decide(·, cost)` would admit, on what this gateway knows, if
   * nothing else arrives anywhere in the fleet and its next sync lands at `syncAt` (Infinity: a design
   * that never syncs). Infinity when it cannot know: what it waits for are admits it has no expiry of
   * (another gateway's, past the store's horizon), or slots only the store can grant. Read, never
   * written: asking changes no decision. (The simulator's skip reads nextChangeAt, which stays as it is.)
   */
  retryAt(now: number, cost: number, syncAt: number): number;
  /**
   * Where retryAt says Infinity: an instant before which `decide(·, cost)` surely would not admit, on
   * what this gateway knows and with nothing else arriving (−Infinity: no bound). Retry-After waits at
   * least until then instead of only until the next sync. Read, never written. Designs without such a
   * bound omit it.
   */
  retryNotBefore?(now: number, cost: number, syncAt: number): number;
  /**
   * Slots still usable now, as this gateway sees it (for the RateLimit header). Between two calls it
   * rises only if a slot really freed in between: an admit this gateway knows of aged out, a sync
   * reported a lower count than the gateway knew of, or the store granted slots.
   */
  remaining(now: number): number;
  /** When the next slot frees up as this gateway sees it (Infinity if it knows of none). */
  resetAt(now: number): number;
  syncEntry(key: string, now: number, into?: SyncEntry): SyncEntry | null;
  applySync(reply: SyncReply, now: number): void;
  syncFailed(now: number): void;
  /** Own admits not yet pushed to the store (including a sync in flight). */
  unsyncedAdmits(): number;
  /** Nothing left in the window, nothing to push, nothing held: the state can be dropped. */
  isIdle(now: number): boolean;
}

/** central-log's request path (Design.requestPath 'log'): every request is logged at the store. */
export interface LogsAtStore {
  onLogReply(reply: LogAdmitReply, now: number, cost: number): boolean;
}

/** The lease designs' asks (Design.requestPath 'ask' for leases-ask): slots asked of the store for a request. */
export interface AsksStore {
  /** Slots the NEED_STORE call asks for (leases-ask); called once per ask, right before it goes out. */
  askSize(cost: number): number;
  onAskReply(reply: AskReply, now: number, cost: number): boolean;
  /**
   * leases-ask in the async runtime: a request `decide` already counted, which waited on an ask another
   * request of this gateway made for the key, decides again on what that ask brought (the same rules,
   * without counting the arrival twice).
   */
  decideAgain(now: number, cost: number): Verdict;
}

/** Designs with early syncs (Design.earlySyncs). */
export interface SyncsEarly {
  /**
   * Whether a sync now, before the next regular one, would let this key admit again. Read only; the
   * caller sends the sync off the request path.
   */
  wantsEarlySync(now: number): boolean;
}

/**
 * Designs whose reads follow requests (Design.readsFollowRequests, issue 35): a key with nothing to
 * push is read at a sync only when `readDue` says so; its syncEntry is null otherwise.
 */
export interface ReadsOnRequest {
  /** FleetParams.readsOnRequest: the rule is on for this key (off, readDue is always true). */
  readonly onRequest: boolean;
  /** Whether a sync now reads the key though it has nothing to push. Read only. */
  readDue(now: number): boolean;
}

/** The limiter reads the store only when a read is due (ReadsOnRequest, and the rule is on). */
export function readsOnRequest(lim: KeyLimiter): lim is KeyLimiter & ReadsOnRequest {
  return (lim as Partial<ReadsOnRequest>).onRequest === true;
}

/**
 * Where a refund of an own admit stands after `takeBack` (docs/decisions/0012-refunds.md):
 * - 'local': it was still this gateway's alone (not pushed, or a design that never pushes): taken
 *   back here, at once (a lease design's slot returns to its grant);
 * - 'store': the store counts it: the caller sends a store refund (Store.refundAdmits);
 * - 'wait': a sync in flight carries it: ask again once that sync is answered or failed;
 * - 'gone': it no longer counts (aged out), or this limiter holds no such admit: nothing to do.
 */
export type TakeBack = 'local' | 'store' | 'wait' | 'gone';

/** Every design takes back an admit it made (Refunds); the runtime sends what only the store can. */
export interface TakesBack {
  /**
   * Takes back `cost` admitted at `at` by this limiter's decide (an ALLOW; `at` its `now`). Never
   * called by the simulator, so a run without refunds decides exactly as before.
   */
  takeBack(at: number, cost: number, now: number): TakeBack;
}

/**
 * A reset of the key (issue 36, express-rate-limit's resetKey; docs/decisions/0014-reset-key.md): the
 * limiter forgets its own admits the store has not seen (pending, not pushed: a lease design's slots
 * go back to its grant, as a refund's do) and returns how many. Admits a sync in flight carries, and
 * those the store counts, are the store's reset's to forget; the limiter's view of them stays until
 * a reply no longer counts them (it errs towards rejecting until its next sync). Never called by the
 * simulator.
 */
export interface Forgets {
  forget(now: number): number;
}

/**
 * A key as a gateway holds it: it decides, takes back refunded admits and forgets on a reset. Every
 * design's key is one; the simulator uses KeyLimiter alone, and the guards above serve code that
 * holds just a KeyLimiter.
 */
export interface GatewayKey extends KeyLimiter, TakesBack, Forgets {}

/** The limiter forgets its own unpushed admits on a reset (Forgets). */
export function forgets(lim: KeyLimiter): lim is KeyLimiter & Forgets {
  return typeof (lim as Partial<Forgets>).forget === 'function';
}

/** The limiter takes back its own admits (TakesBack). */
export function takesBack(lim: KeyLimiter): lim is KeyLimiter & TakesBack {
  return typeof (lim as Partial<TakesBack>).takeBack === 'function';
}

/** The limiter logs its requests at the store (LogsAtStore). */
export function logsAtStore(lim: KeyLimiter): lim is KeyLimiter & LogsAtStore {
  return typeof (lim as Partial<LogsAtStore>).onLogReply === 'function';
}

/** The limiter asks the store for slots (AsksStore). */
export function asksStore(lim: KeyLimiter): lim is KeyLimiter & AsksStore {
  return typeof (lim as Partial<AsksStore>).onAskReply === 'function';
}

/** The limiter may want a sync before the next regular one (SyncsEarly). */
export function syncsEarly(lim: KeyLimiter): lim is KeyLimiter & SyncsEarly {
  return typeof (lim as Partial<SyncsEarly>).wantsEarlySync === 'function';
}
