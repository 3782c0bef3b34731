import type { AskReply, AsyncStore, HeartbeatReply, LogAdmitReply, Store, SyncResult } from './contract.js';

/** A store the async runtime takes: the network one (AsyncStore) or the in-process one (Store). */
export type AnyStore = AsyncStore | Store;

/**
 * Any store as an AsyncStore, so the async runtime has one code path whatever it is given. A
 * synchronous Store (the in-memory MemoryStore: one process, tests, demos) answers at once; its reply
 * becomes a settled promise, and an exception a rejected one (a failed store call, never a crash:
 * the runtime used to call `.then` on the plain reply, from its sync timer). An AsyncStore's promise
 * passes through untouched. Methods are looked up at each call, so a store patched afterwards (a
 * test playing a fault) is the one called. Its clock is the wrapped store's; a synchronous store
 * runs on the time it is passed ('caller').
 */
export function asAsyncStore(store: AnyStore): AsyncStore {
  if (ADAPTED.has(store as AsyncStore)) return store as AsyncStore;
  const s = store as Store & AsyncStore;
  // every argument passed on as given, so that an argument the contract gains (ask's seq) is never dropped
  const adapted: AsyncStore = {
    clock: s.clock ?? 'caller',
    // a store that cannot tell counts as connected: its calls that run out of time are slow ones
    connected: () => s.connected?.() !== false,
    logAdmit: (...a: Parameters<AsyncStore['logAdmit']>) => settle<LogAdmitReply>(() => s.logAdmit(...a)),
    voidLogAdmits: (...a: Parameters<AsyncStore['voidLogAdmits']>) =>
      settle<void>(() => s.voidLogAdmits(...a)),
    sync: (...a: Parameters<AsyncStore['sync']>) => settle<SyncResult>(() => s.sync(...a)),
    ask: (...a: Parameters<AsyncStore['ask']>) => settle<AskReply>(() => s.ask(...a)),
  };
  // only a store that counts live gateways offers it: its absence is how `gateways: 'auto'` tells
  if (typeof s.heartbeat === 'function') {
    adapted.heartbeat = (...a: Parameters<NonNullable<AsyncStore['heartbeat']>>) =>
      settle<HeartbeatReply>(() => s.heartbeat!(...a));
  }
  // likewise refunds: a store without them serves none (the gateway refuses them at setup)
  if (typeof s.refundAdmits === 'function') {
    adapted.refundAdmits = (...a: Parameters<NonNullable<AsyncStore['refundAdmits']>>) =>
      settle<number>(() => s.refundAdmits!(...a));
  }
  // and resets (issue 36)
  if (typeof s.resetKey === 'function') {
    adapted.resetKey = (...a: Parameters<NonNullable<AsyncStore['resetKey']>>) =>
      settle(() => s.resetKey!(...a));
  }
  if (typeof s.resetScan === 'function') {
    adapted.resetScan = (...a: Parameters<NonNullable<AsyncStore['resetScan']>>) =>
      settle(() => s.resetScan!(...a));
  }
  ADAPTED.add(adapted);
  return adapted;
}

const ADAPTED = new WeakSet<AsyncStore>();

function settle<T>(call: () => T | Promise<T>): Promise<T> {
  try {
    const r = call();
    // a thenable is awaited as it is; anything else is a synchronous store's reply
    return isThenable(r) ? r : Promise.resolve(r);
  } catch (err) {
    return Promise.reject(err);
  }
}

function isThenable<T>(v: T | Promise<T>): v is Promise<T> {
  return (
    v !== null &&
    (typeof v === 'object' || typeof v === 'function') &&
    typeof (v as { then?: unknown }).then === 'function'
  );
}
