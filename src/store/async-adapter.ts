import type { Policy } from '../config.js';
import type {
  AskReply,
  AsyncStore,
  LogAdmitReply,
  LogCall,
  LogVoid,
  Store,
  SyncRequest,
  SyncResult,
} from './contract.js';

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
  const adapted: AsyncStore = {
    clock: s.clock ?? 'caller',
    logAdmit: (key: string, policy: Policy, now: number, cost: number, call?: LogCall) =>
      settle<LogAdmitReply>(() => s.logAdmit(key, policy, now, cost, call)),
    voidLogAdmits: (gatewayId: string, policy: Policy, voids: LogVoid[], now: number) =>
      settle<void>(() => s.voidLogAdmits(gatewayId, policy, voids, now)),
    sync: (req: SyncRequest, now: number) => settle<SyncResult>(() => s.sync(req, now)),
    ask: (gatewayId: string, key: string, policy: Policy, leaseTtlMs: number, n: number, now: number) =>
      settle<AskReply>(() => s.ask(gatewayId, key, policy, leaseTtlMs, n, now)),
  };
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
