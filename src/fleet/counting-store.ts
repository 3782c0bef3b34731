import type { Policy } from '../config.js';
import type { AskReply, AsyncStore, LogAdmitReply, SyncRequest, SyncResult } from '../store/contract.js';

/**
 * Passes every call through and counts the request-path ones (logAdmit, ask), the figure the
 * simulator reports as round trips per request.
 */
export class CountingStore implements AsyncStore {
  requestPathCalls = 0;

  constructor(private readonly inner: AsyncStore) {}

  logAdmit(key: string, policy: Policy, now: number, cost: number): Promise<LogAdmitReply> {
    this.requestPathCalls++;
    return this.inner.logAdmit(key, policy, now, cost);
  }

  ask(
    gatewayId: string,
    key: string,
    policy: Policy,
    leaseTtlMs: number,
    ask: number,
    now: number,
  ): Promise<AskReply> {
    this.requestPathCalls++;
    return this.inner.ask(gatewayId, key, policy, leaseTtlMs, ask, now);
  }

  sync(req: SyncRequest, now: number): Promise<SyncResult> {
    return this.inner.sync(req, now);
  }
}
