import type { Policy } from '../../config.js';
import type { AsyncStore } from '../../store/contract.js';
import type { FailureCause } from './failure-cause.js';
import type { LogVoids } from './log-voids.js';
import { withTimeout } from './timeout.js';

/** A voidLogAdmits call that failed: the first void's key, and why. */
export interface VoidCallFailure {
  key: string;
  cause: FailureCause;
  error?: unknown;
}

/**
 * Takes back the central-log calls that failed or timed out (LogVoids), in one voidLogAdmits call at
 * decision time `now`, before the sync that brings the gateway back to the store: a call that landed
 * anyway stops counting, and one still on its way is refused when it lands. Kept for the next round if
 * the store does not answer; the failure is returned (the sync goes ahead regardless).
 */
export async function sendVoids(
  store: AsyncStore,
  voids: LogVoids,
  call: { gatewayId: string; policy: Policy; timeoutMs: number },
  now: number,
): Promise<VoidCallFailure | null> {
  const taken = voids.take();
  const r = await withTimeout(
    () => store.voidLogAdmits(call.gatewayId, call.policy, taken, now),
    call.timeoutMs,
    store,
    'renew',
  );
  const failed = voids.settled(taken, r);
  if (failed === null) return null;
  return { key: failed.key, cause: failed.cause, error: failed.error };
}
