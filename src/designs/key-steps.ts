import type { AskReply, Store, SyncEntry, SyncReply } from '../store/contract.js';
import {
  ALLOW,
  type AsksStore,
  asksStore,
  type FleetParams,
  type KeyLimiter,
  logsAtStore,
  type Verdict,
} from './key-limiter.js';

/**
 * The steps every driver of a key's limiter takes (the library's Gateway, the async runtime, the
 * simulator's engine), written once: a request's store call on NEED_STORE, a key's part of a sync, a
 * sync's reply, and the rule that a key with nothing left is dropped. Pure but for the store call the
 * caller hands in; time is passed in.
 */

/** Where a NEED_STORE request goes (Design.requestPath): central-log's log, leases-ask's ask. */
export type RequestPath = 'log' | 'ask';

/**
 * A NEED_STORE request on a store that answers at once (the in-memory store): central-log's
 * logAdmit, or leases-ask's ask for `askSize` slots tagged with `seq` (the gateway's last sync built),
 * and the limiter's verdict on the reply: admitted or not.
 */
export function callStore(
  store: Store,
  /** null: a design without a request path, which never says NEED_STORE */
  path: RequestPath | null,
  lim: KeyLimiter,
  gatewayId: string,
  key: string,
  fleet: FleetParams,
  now: number,
  cost: number,
  seq: number,
): boolean {
  const { policy } = fleet;
  if (path === 'log' && logsAtStore(lim))
    return lim.onLogReply(store.logAdmit({ key, policy, cost }, now), now, cost);
  if (path !== 'log' && asksStore(lim)) {
    const reply = store.ask(
      { gatewayId, key, policy, leaseTtlMs: fleet.leaseTtlMs, ask: lim.askSize(cost), seq },
      now,
    );
    return lim.onAskReply(reply, now, cost);
  }
  throw new Error(`${lim.design} said NEED_STORE without the store call its request path needs`);
}

/**
 * leases-ask's ask answered where a sync may cross it (the async runtime): ALLOW on the grant; else
 * the limiter decides again on what it holds (decideAgain): DENY, refused on its merits, or
 * NEED_STORE, the grant was one a sync built meanwhile may hand back, so the request asks again.
 */
export function askAnswered(lim: AsksStore, reply: AskReply, now: number, cost: number): Verdict {
  if (lim.onAskReply(reply, now, cost)) return ALLOW;
  return lim.decideAgain(now, cost);
}

/** A key that has nothing to tell a sync and nothing left: its driver drops its state (see syncEntryOf). */
export const DROP = 0;

/**
 * A key's part of a sync at `now`: its entry (written into `into` when given, see KeyLimiter.syncEntry); null when it has nothing to tell the store; DROP when it
 * has nothing to tell and nothing left (no admit in the window, nothing to push, nothing held).
 */
export function syncEntryOf(
  lim: KeyLimiter,
  key: string,
  now: number,
  into?: SyncEntry,
): SyncEntry | null | typeof DROP {
  const e = lim.syncEntry(key, now, into);
  if (e !== null) return e;
  return lim.isIdle(now) ? DROP : null;
}

/** A sync's reply applied to the key at `now`; true when nothing is left of it: its driver drops its state. */
export function applyReply(lim: KeyLimiter, reply: SyncReply, now: number): boolean {
  lim.applySync(reply, now);
  return lim.isIdle(now);
}

/** An entry to write each key's sync entry into (fillEntry), every field made at once: one hidden class. */
export function newEntry(): SyncEntry {
  return { key: '', admits: [], counts: undefined, read: false, release: false, ask: 0 };
}

/** A sync entry written into `e` (KeyLimiter.syncEntry's `into`): every field, so none is left from before. */
export function fillEntry(
  e: SyncEntry,
  key: string,
  admits: number[],
  counts: number[] | undefined,
  read: boolean,
  release: boolean,
  ask: number,
): SyncEntry {
  e.key = key;
  e.admits = admits;
  e.counts = counts;
  e.read = read;
  e.release = release;
  e.ask = ask;
  return e;
}
