import type { Policy } from '../config.js';

/**
 * The store contract: every design talks to the shared store only through these calls.
 * Times are milliseconds on the store's clock. `sync` covers many keys in one call, because a
 * gateway holds state for many keys and a sync of N keys must be one round trip, not N.
 *
 * `Store` is the synchronous form (the exact in-memory store, used by the simulator and tests);
 * `AsyncStore` is the same contract over a network (Redis).
 */

/** What one gateway says about one key at a sync. */
export interface SyncEntry {
  key: string;
  /**
   * Times of this gateway's admits since its last sync, ascending, as runs: `counts[i]` admits at
   * `admits[i]` (one each without `counts`). A request of any cost is one run: an entry's size follows
   * requests, never their cost (src/window/runs.ts has the helpers).
   */
  admits: number[];
  /** Admits per run of `admits` (each at least 1); undefined: one each. */
  counts?: number[];
  /** The shared-counter family: reply with the key's admitted count and soon-to-expire admits. */
  read: boolean;
  /**
   * Lease designs: hand back this gateway's grant for this key as it was when this sync was built
   * (spent slots are in `admits`): every part granted by an earlier sync, or by an ask sent before
   * this sync was built. Parts granted by asks sent after it stay outstanding (see `AskRequest.seq`).
   */
  release: boolean;
  /** Lease designs: slots asked for; 0 asks nothing. */
  ask: number;
}

export interface SyncRequest {
  /**
   * Who syncs: the store keeps seqs and grants per gatewayId. The async runtime sends one incarnation
   * of its gateway (its id and a random nonce, see `incarnationOf`), so a restart never reuses the
   * seqs of the run before it.
   */
  gatewayId: string;
  /**
   * Increases with every sync of this gateway. Checked per key: a key pushed to by a seq skips the
   * pushes of a resend with that seq (a replay) and refuses an older one; a key no newer sync pushed
   * to takes an older seq's pushes. So one sync may go out as several requests (parts) with one seq,
   * and a failed part may be resent after a newer sync's parts were applied, provided no key of it is
   * in those newer parts.
   */
  seq: number;
  /**
   * Set when gatewayId is one incarnation of this gateway id: the store records gatewayId as the id's
   * latest incarnation (one small record per id) and answers with the one it replaced
   * (`SyncResult.previousIncarnation`). A gateway that finds another incarnation wrote it since its
   * own previous claim knows a second live gateway runs with its id.
   */
  incarnationOf?: string;
  policy: Policy;
  /** How long a grant stays outstanding without a sync before the store takes it back. */
  leaseTtlMs: number;
  /** Report expiries up to this far ahead of the store's now (the gateway's view ages out on its own until then). */
  horizonMs: number;
  entries: SyncEntry[];
}

/** The store's answer for one key, after the entry's pushes were applied. */
export interface SyncReply {
  /** Admitted in the window at the store's now (outstanding grants not included). */
  count: number;
  /**
   * Expiry instants of counted admits that expire before `horizon`, ascending. Past the horizon the
   * gateway knows nothing more about expiries and must keep its count (it errs towards rejecting).
   */
  expiries: number[];
  /**
   * Admits per instant of `expiries` (as SyncEntry.counts: equal instants may repeat); undefined: one
   * each. So a reply's size follows the requests counted, never their cost.
   */
  expiryCounts?: number[];
  horizon: number;
  /** Slots granted to this gateway by this sync (lease designs); a retry of a sync that landed answers with that sync's grant. */
  granted: number;
  /**
   * The instant the gateway must stop spending those slots (store time), unless a later reply moves
   * it. The store keeps them counted until an admit made then would age out, so slots spent before
   * it and not yet pushed are never granted again meanwhile.
   */
  grantExpiresAt: number;
  /**
   * When the oldest admit counted leaves the window (Infinity if none). With `release` (lease
   * designs) always: with `count` it tells a gateway holding no slot when the store frees one, a lease
   * design's Retry-After (it answered its next sync before, issue 31). With `read` (the shared-counter
   * family) whenever the reply counts admits and lists no expiry (it may be given otherwise too: then
   * it is the first listed): the oldest of the admits counted past the horizon, which a gateway knows
   * only as a count. Its Retry-After waits for that one, and for no other of them before it (it
   * waited for its own oldest admit instead, up to a window late, issue 31). Other entries omit it.
   */
  oldestExpiry?: number;
  /**
   * With `read` alone (the shared-counter family) and a count of L (the policy's limit) or more: the
   * count stays at L − j or more until `belowLimitAt[j]` (j = 0, 1). Each is the first instant the
   * count falls below L − j, nothing more arriving (the expiry of the admit at rank count − L + j,
   * oldest first), when the store finds that admit within a bounded read of its log (RedisStore: its
   * 32 oldest members; MemoryStore: always); past the read, an earlier instant; −Infinity: no bound. A
   * gateway's Retry-After waits for them (a request of cost 1 for the first, of cost 2 for the
   * second): with the oldest expiry alone it answered when one admit left where count − L + cost had
   * to (early by up to a window, issue 31). Other entries omit it.
   */
  belowLimitAt?: number[];
  /**
   * With `read` alone (the shared-counter family), when the reply counts admits it does not list
   * (expiring at or past its horizon) and its count is L − 2 or more (L the policy's limit: one or two
   * requests take it to L): the expiries of the oldest two of those, the admits at ranks m and m + 1
   * (oldest first, m the admits listed):
   * Infinity where there is no such admit, −Infinity where the store's bounded read did not reach it
   * (RedisStore's exact mode: its 32 oldest members). A gateway whose own admits since the reply took
   * the key to L waits for one of these: with the oldest expiry alone (or none, some listed) it said
   * when one admit left where more had to, early until its next sync (issue 31). Other entries omit it.
   */
  pastHorizonAt?: number[];
  /**
   * With `release`: slots neither admitted in the window nor granted to any gateway, after this entry
   * (>= 0). A lease gateway shows what it holds plus these as `remaining` (its own grant alone went
   * 1, 0, 1, 0 as asks refilled it).
   */
  free?: number;
}

export interface SyncResult {
  /** The store's time when it applied the sync. */
  now: number;
  replies: SyncReply[];
  /** With `incarnationOf`: the incarnation recorded for that id before this sync (null: none). */
  previousIncarnation?: string | null;
}

/**
 * One central-log call of one gateway. With it the store can take the call back: a gateway whose call
 * timed out decides without it, and must be able to make sure the store does not count it anyway.
 * `seq` increases with every call the gateway makes.
 */
export interface LogCall {
  gatewayId: string;
  seq: number;
}

/** A timed-out logAdmit to take back (see `voidLogAdmits`). */
export interface LogVoid {
  key: string;
  seq: number;
  cost: number;
}

/**
 * One admit to take back (a refund, issue 36): `cost` admitted at `at` on `key` by the gateway that
 * sends it, once the response showed the request should not count. The gateway sends it only once
 * the store counts the admit (its push answered, or central-log's call answered): one still local
 * it takes back itself (docs/decisions/0012-refunds.md).
 */
export interface Refund {
  key: string;
  /**
   * Numbers the gateway's refunds from 1, increasing (per incarnation, over all keys): the store
   * applies a key's refunds of one gateway in seq order, each once, so a resend changes nothing.
   */
  seq: number;
  /** The admit's instant, as the gateway pushed it (central-log: the store's stamp, Decision.at). */
  at: number;
  /** Admits to take back at `at` (the request's cost). */
  cost: number;
}

/**
 * A key's admits to forget (issue 36: express-rate-limit's `resetKey`): every admit of `key` the
 * store counts at its now, at or before that now, stops counting. Grants stay as they are (a slot
 * granted and not spent is not an admit), and so does every other record of the key (seqs, voids,
 * refund seqs). Admits pushed later count, whatever their instant: a gateway sends its reset before
 * any later push of the key (docs/decisions/0014-reset-key.md).
 */
export interface ResetKeyRequest {
  /** Who resets (the incarnation, as for syncs): for the store's logs; a reset is the same from anyone. */
  gatewayId: string;
  key: string;
  policy: Policy;
}

export interface ResetKeyReply {
  /** Admits that stopped counting. */
  removed: number;
  /** The store's time when it reset. */
  now: number;
}

/**
 * One chunk of a reset of every key of a policy (issue 36: express-rate-limit's `resetAll`;
 * docs/decisions/0015-reset-all.md): the store looks at about `count` of the policy's keys from
 * `cursor` on and resets each as `resetKey` would, but through `at`, the instant the reset was asked
 * for, rather than its now: every admit of those keys at or before `at` the store counts stops
 * counting; admits after it (a caller's request since) keep counting. Grants and every other record
 * stay. A scan resumed from each reply's cursor until it is null visits every key held at the first
 * call and still held (some maybe twice: a repeat at the same `at` removes nothing more).
 */
export interface ResetScanRequest {
  /** Who resets (for the store's logs; a reset is the same from anyone). */
  gatewayId: string;
  policy: Policy;
  /** The reset's instant, on the store's time: admits at or before it stop counting (at most now). */
  at: number;
  /** Where to go on: '' at the start, then the reply's cursor. */
  cursor: string;
  /** About how many keys to look at in this call (Redis SCAN's COUNT): the call's work follows it. */
  count: number;
}

export interface ResetScanReply {
  /** Where the next call goes on; null once the scan is through. */
  cursor: string | null;
  /** Keys this call reset. */
  keys: number;
  /** Admits that stopped counting. */
  removed: number;
  /** The store's time when it answered. */
  now: number;
}

/** central-log's request-path call: admit iff the window's count + cost <= limit, atomically. */
export interface LogAdmitRequest {
  key: string;
  policy: Policy;
  /** Admits asked for (the request's cost, a positive integer). */
  cost: number;
  /**
   * With it, the admits are recorded as that call's, and a call that was voided already (its seq at
   * or below the highest seq `voidLogAdmits` took back for its gateway on this key, within the last
   * window) is refused without counting anything.
   */
  call?: LogCall;
}

/** The answer to a `LogAdmitRequest`. */
export interface LogAdmitReply {
  allowed: boolean;
  /** Count in the window after this call. */
  count: number;
  /** When the oldest counted admit leaves the window (Infinity if none). */
  oldestExpiry: number;
  now: number;
}

/** leases-ask's request-path call: one gateway asks for slots of one key. */
export interface AskRequest {
  /** Who asks: the store keeps grants per gatewayId (the async runtime sends its incarnation, as at a sync). */
  gatewayId: string;
  key: string;
  policy: Policy;
  /** How long the grant stays outstanding without a sync before the store takes it back. */
  leaseTtlMs: number;
  /** Slots asked for. */
  ask: number;
  /**
   * The seq of the last sync the gateway built before sending this ask (0 before its first): the grant
   * is handed back by the gateway's first sync with a higher seq, never by that one or a retry of it,
   * in whichever order the calls land.
   * @default 0
   */
  seq?: number;
}

/** leases-ask's request-path call: grant up to `req.ask` slots now. */
export interface AskReply {
  granted: number;
  grantExpiresAt: number;
  now: number;
  /** Admitted in the window at the store's now (optional: see SyncReply.oldestExpiry). */
  count?: number;
  /** As SyncReply.oldestExpiry. */
  oldestExpiry?: number;
  /** As SyncReply.free, after this grant. */
  free?: number;
}

/**
 * One gateway's heartbeat for `gateways: 'auto'`, once per sync round: the store keeps, per policy,
 * the gateways whose last beat is within that beat's own `liveWithinMs` of its now, and answers how
 * many there are. Each member is kept by the window it beat with, never by the caller's: gateways of
 * one policy may sync at different Δ, and one with a short Δ must not drop the others' beats (issue
 * 32, item 3). Only the gateways of one policy count one another (a policy is its own fleet).
 */
export interface Heartbeat {
  /** Who beats: the async runtime sends its incarnation (a restart is a new member; the old one ages out). */
  gatewayId: string;
  policy: Policy;
  /**
   * This member counts until this long (ms, store time) after this beat; past it, without a newer beat,
   * it has crashed or lost the store: not counted. The member's own, whatever the others beat with.
   */
  liveWithinMs: number;
  /** A stopping gateway leaves at once; the reply counts the others. */
  leaving?: boolean;
}

export interface HeartbeatReply {
  /** Gateways of the policy whose last beat is within its own liveWithinMs, this one included unless it left. */
  live: number;
  /** The store's time when it counted. */
  now: number;
}

/** The most a heartbeat may ask the store to look back (a day): the store's work never depends on a client's whim. */
export const MAX_LIVE_WITHIN_MS = 86_400_000;

/** The store contract, written once: `AsyncStore` is these calls answering with promises. */
export interface Store {
  /** Admits `req.cost` on `req.key` iff the window has room, atomically (see `LogAdmitRequest`). */
  logAdmit(req: LogAdmitRequest, now: number): LogAdmitReply;
  /**
   * Takes back logAdmit calls their gateway gave up on: a call that landed loses its admits (they
   * leave the window's count), and one that has not landed yet is refused when it does (for a
   * window after the void). Idempotent: safe to resend.
   */
  voidLogAdmits(gatewayId: string, policy: Policy, voids: LogVoid[], now: number): void;
  sync(req: SyncRequest, now: number): SyncResult;
  /** Grants up to `req.ask` more slots now (see `AskRequest`). */
  ask(req: AskRequest, now: number): AskReply;
  /** Keys the store holds state for (the in-memory store's alone: AsyncStore has no such field). */
  readonly keyCount: number;
  /**
   * Takes back admits (see `Refund`): each refund of a key whose seq is above every seq this gateway
   * refunded on the key before removes up to `cost` admits at `at` from the key's window, if they
   * still count at `now` (one already aged out, or never counted, changes nothing). Idempotent: a
   * resend, or a refund older than one applied, removes nothing. Returns the admits removed.
   * Optional: a store without it serves no refunds (the gateway refuses them at setup).
   */
  refundAdmits?(gatewayId: string, policy: Policy, refunds: Refund[], now: number): number;
  /**
   * See `ResetKeyRequest`. Safe to repeat (a repeat forgets what was pushed since, at or before its
   * now). Its work follows the admits the key counts, never what a caller sends. Optional: a store
   * without it serves no resets (the gateway's `resetKey` throws).
   */
  resetKey?(req: ResetKeyRequest, now: number): ResetKeyReply;
  /**
   * See `ResetScanRequest`. Its work follows `count` (the keys looked at), never the keys held.
   * Optional: a store without it resets no policy whole (the gateway's `resetAll` throws).
   */
  resetScan?(req: ResetScanRequest, now: number): ResetScanReply;
  /** See `Heartbeat`. Optional: a store without it serves fixed K only (`gateways: 'auto'` needs it). */
  heartbeat?(beat: Heartbeat, now: number): HeartbeatReply;
}

/** Each call of T answering with a promise of what it answered; optional calls stay optional. */
export type Promised<T> = {
  [K in keyof T]: NonNullable<T[K]> extends (...args: infer A) => infer R ? (...args: A) => Promise<R> : T[K];
};

/** `Store`'s calls over a network (Redis): each answers with a promise. */
export interface AsyncStore extends Promised<Omit<Store, 'keyCount'>> {
  /**
   * Whose clock the store's times are on: 'store', its own (Redis TIME: the `now` passed in is
   * ignored, and a gateway learns the store's time from each reply), or 'caller', the `now` passed in.
   * @default 'caller'
   */
  readonly clock?: 'store' | 'caller';
  /**
   * Whether the store's client has a connection to the store now, if it can tell (RedisStore: the
   * ioredis client is 'ready'). A call that times out while it is false was refused, not slow: it
   * waited in the client's offline queue for a connection (see failureCause).
   */
  connected?(): boolean;
}
