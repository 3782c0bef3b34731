import type { Policy } from '../../src/config.js';
import type {
  AskReply,
  AskRequest,
  AsyncStore,
  Heartbeat,
  HeartbeatReply,
  LogAdmitReply,
  LogAdmitRequest,
  LogVoid,
  SyncRequest,
  SyncResult,
} from '../../src/store/contract.js';
import type { MemoryStore } from '../../src/store/memory-store.js';
import { boundedSweep } from './bounded-sweep.js';

/**
 * An AsyncStore over the exact in-memory store, with faults to play an unreachable or slow store:
 * - 'ok': answers (after `delayMs`, applied halfway, like a network round trip);
 * - 'hang': never answers; 'fail': rejects at once.
 * With `clock`, the store runs on its own clock (as Redis does with TIME) instead of the caller's now,
 * and says so (AsyncStore.clock = 'store'), unless `kind` is 'caller': a test whose gateway reads the
 * very clock the store does may say so, and its gateway has no clock to learn before deciding.
 * Delays use setTimeout, so vitest fake timers drive them.
 */
export class TestAsyncStore implements AsyncStore {
  mode: 'ok' | 'hang' | 'fail' = 'ok';
  delayMs = 0;
  /**
   * Store time per key of a sync, ms: with it the store is one server (as Redis is) that works
   * through the syncs it gets one after another, each taking perKeyMs × its keys, applied when done.
   */
  perKeyMs = 0;
  /** When the one server is free again (perKeyMs). */
  private busyUntil = Number.NEGATIVE_INFINITY;
  readonly calls = { sync: 0, logAdmit: 0, ask: 0, voidLogAdmits: 0 };
  /** Syncs applied to the memory store, including replays and ones whose reply came too late. */
  readonly applied: SyncRequest[] = [];

  /** 'store' with its own clock (AsyncStore.clock). */
  readonly clock: 'store' | 'caller';

  constructor(
    readonly memory: MemoryStore = boundedSweep(),
    private readonly storeClock?: () => number,
    kind?: 'store' | 'caller',
  ) {
    this.clock = kind ?? (storeClock === undefined ? 'caller' : 'store');
  }

  private async run<T>(callerNow: number, op: (now: number) => T): Promise<T> {
    if (this.mode === 'fail') throw new Error('store unreachable (test)');
    if (this.mode === 'hang') return new Promise<T>(() => {});
    const half = this.delayMs / 2;
    if (half > 0) await sleep(half);
    const v = op(this.storeClock === undefined ? callerNow : this.storeClock());
    if (half > 0) await sleep(half);
    return v;
  }

  sync(req: SyncRequest, now: number): Promise<SyncResult> {
    this.calls.sync++;
    if (this.perKeyMs > 0 && this.mode === 'ok') return this.queued(req, now);
    return this.run(now, (t) => {
      this.applied.push(req);
      return this.memory.sync(req, t);
    });
  }

  /** A sync on the one server: queued behind the others, perKeyMs per key, applied when its turn ends. */
  private async queued(req: SyncRequest, callerNow: number): Promise<SyncResult> {
    const half = this.delayMs / 2;
    if (half > 0) await sleep(half);
    const start = Math.max(Date.now(), this.busyUntil);
    this.busyUntil = start + this.perKeyMs * req.entries.length;
    await sleep(this.busyUntil - Date.now());
    this.applied.push(req);
    const v = this.memory.sync(req, this.storeClock === undefined ? callerNow : this.storeClock());
    if (half > 0) await sleep(half);
    return v;
  }

  logAdmit(req: LogAdmitRequest, now: number): Promise<LogAdmitReply> {
    this.calls.logAdmit++;
    return this.run(now, (t) => this.memory.logAdmit(req, t));
  }

  /** Heartbeats answered or failed (gateways 'auto'); kept apart from `calls`, which tests compare whole. */
  heartbeats = 0;

  heartbeat(beat: Heartbeat, now: number): Promise<HeartbeatReply> {
    this.heartbeats++;
    return this.run(now, (t) => this.memory.heartbeat(beat, t));
  }

  voidLogAdmits(gatewayId: string, policy: Policy, voids: LogVoid[], now: number): Promise<void> {
    this.calls.voidLogAdmits++;
    return this.run(now, (t) => this.memory.voidLogAdmits(gatewayId, policy, voids, t));
  }

  ask(req: AskRequest, now: number): Promise<AskReply> {
    this.calls.ask++;
    return this.run(now, (t) => this.memory.ask(req, t));
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
