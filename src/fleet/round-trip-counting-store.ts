import type { AskReply, AskRequest, AsyncStore, LogAdmitReply, LogAdmitRequest } from '../store/contract.js';
import { PassThroughStore } from '../store/pass-through.js';

/**
 * Passes every call through and counts the request-path ones (logAdmit, ask), the figure the
 * simulator reports as round trips per request; and the asks made while another ask for the same key
 * was still waiting. The simulator's store answers at once, so it never makes those; the runtime keeps
 * one ask in flight per key, so a live run should count none either (this is the check).
 */
export class RoundTripCountingStore extends PassThroughStore<AsyncStore> implements AsyncStore {
  requestPathCalls = 0;
  overlappingAsks = 0;
  private readonly asking = new Map<string, number>();

  override logAdmit(req: LogAdmitRequest, now: number): Promise<LogAdmitReply> {
    this.requestPathCalls++;
    return this.inner.logAdmit(req, now);
  }

  override ask(req: AskRequest, now: number): Promise<AskReply> {
    this.requestPathCalls++;
    const key = req.key;
    const waiting = this.asking.get(key) ?? 0;
    if (waiting > 0) this.overlappingAsks++;
    this.asking.set(key, waiting + 1);
    const done = () => {
      const n = (this.asking.get(key) ?? 1) - 1;
      if (n === 0) this.asking.delete(key);
      else this.asking.set(key, n);
    };
    const p = this.inner.ask(req, now);
    p.then(done, done);
    return p;
  }
}
