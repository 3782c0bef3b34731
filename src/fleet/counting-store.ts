import type { Policy } from '../config.js';
import type {
  AskReply,
  AsyncStore,
  LogAdmitReply,
  LogCall,
  LogVoid,
  SyncRequest,
  SyncResult,
} from '../store/contract.js';

/**
 * Passes every call through and counts the request-path ones (logAdmit, ask), the figure the
 * simulator reports as round trips per request; and the asks made while another ask for the same key
 * was still waiting. The simulator's store answers at once, so it never makes those; the runtime keeps
 * one ask in flight per key, so a live run should count none either (this is the check).
 */
export class CountingStore implements AsyncStore {
  requestPathCalls = 0;
  overlappingAsks = 0;
  private readonly asking = new Map<string, number>();

  /** The inner store's, when it has one (gateways 'auto'). */
  readonly heartbeat?: AsyncStore['heartbeat'];
  /** The inner store's, when it has one (refunds). */
  readonly refundAdmits?: AsyncStore['refundAdmits'];
  /** The inner store's, when it has one (resets). */
  readonly resetKey?: AsyncStore['resetKey'];

  constructor(private readonly inner: AsyncStore) {
    if (inner.heartbeat !== undefined) this.heartbeat = inner.heartbeat.bind(inner);
    if (inner.refundAdmits !== undefined) this.refundAdmits = inner.refundAdmits.bind(inner);
    if (inner.resetKey !== undefined) this.resetKey = inner.resetKey.bind(inner);
  }

  get clock(): AsyncStore['clock'] {
    return this.inner.clock;
  }

  connected(): boolean {
    return this.inner.connected?.() !== false;
  }

  logAdmit(key: string, policy: Policy, now: number, cost: number, call?: LogCall): Promise<LogAdmitReply> {
    this.requestPathCalls++;
    return this.inner.logAdmit(key, policy, now, cost, call);
  }

  voidLogAdmits(gatewayId: string, policy: Policy, voids: LogVoid[], now: number): Promise<void> {
    return this.inner.voidLogAdmits(gatewayId, policy, voids, now);
  }

  ask(
    gatewayId: string,
    key: string,
    policy: Policy,
    leaseTtlMs: number,
    ask: number,
    now: number,
    seq?: number,
  ): Promise<AskReply> {
    this.requestPathCalls++;
    const waiting = this.asking.get(key) ?? 0;
    if (waiting > 0) this.overlappingAsks++;
    this.asking.set(key, waiting + 1);
    const done = () => {
      const n = (this.asking.get(key) ?? 1) - 1;
      if (n === 0) this.asking.delete(key);
      else this.asking.set(key, n);
    };
    const p = this.inner.ask(gatewayId, key, policy, leaseTtlMs, ask, now, seq);
    p.then(done, done);
    return p;
  }

  sync(req: SyncRequest, now: number): Promise<SyncResult> {
    return this.inner.sync(req, now);
  }
}
