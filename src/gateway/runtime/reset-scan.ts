import type { AsyncStore } from '../../store/contract.js';
import type { QueueCall } from './store-queue.js';
import { withTimeout } from './timeout.js';

/**
 * Keys one resetScan call looks at (Redis SCAN's COUNT): a call's work at the store, and the reply's
 * size, stay about this whatever the keys held.
 */
export const RESET_SCAN_COUNT = 256;

/** What a store scan of a reset-all did: whether it went through, and what it reset. */
export interface ScanResult {
  ok: boolean;
  keys: number;
  removed: number;
  /** Why a chunk failed (ok false). */
  error?: unknown;
}

/**
 * The store's part of AsyncGateway.resetAll (docs/decisions/0015-reset-all.md): Store.resetScan from
 * the start until its cursor is null, one chunk at a time (each awaited before the next: the store's
 * work is one chunk at a time, never a client's request), every key reset through `at`, the instant
 * resetAll was called. A chunk that fails (or times out) ends the scan: ok false, and resetAll says
 * so; calling it again starts afresh (a repeat removes nothing the first did not, bar admits since).
 */
export async function scanReset(
  store: AsyncStore,
  call: QueueCall,
  at: number,
  now: () => number,
  count = RESET_SCAN_COUNT,
): Promise<ScanResult> {
  const result: ScanResult = { ok: true, keys: 0, removed: 0 };
  let cursor: string | null = '';
  while (cursor !== null) {
    const from: string = cursor;
    const r = await withTimeout(
      () =>
        store.resetScan!({ gatewayId: call.gatewayId, policy: call.policy, at, cursor: from, count }, now()),
      call.timeoutMs,
      store,
      'renew',
    );
    if (!r.ok) return { ...result, ok: false, error: r.error ?? new Error(`resetScan: ${r.cause}`) };
    result.keys += r.value.keys;
    result.removed += r.value.removed;
    cursor = r.value.cursor;
  }
  return result;
}
