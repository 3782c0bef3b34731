/**
 * A store stepped beside MemoryStore, call for call at the same `now`: the Redis (and Cluster)
 * properties of refunds, resetKey and resetAll push the same admits to both, then read each key
 * back from both and compare (test/store/redis/{refunds,reset-key,reset-all}.property.live.test.ts).
 */
import fc from 'fast-check';
import { expect } from 'vitest';
import type { Policy, WindowKind } from '../../src/config.js';
import type { SyncReply, SyncRequest } from '../../src/store/contract.js';
import { MemoryStore } from '../../src/store/memory-store.js';
import { type AnyStore, listed } from './store-contract.js';

/** Runs of admits a push carries: each `off` ms before its instant, n admits at it. */
export const pushRuns = fc.array(
  fc.record({ off: fc.integer({ min: 0, max: 60 }), n: fc.integer({ min: 1, max: 3 }) }),
  { minLength: 1, maxLength: 6 },
);

/** A window and up to 40 steps drawn from `step`. */
export function storeCase<S>(step: fc.Arbitrary<S>) {
  return fc.record({
    windowMs: fc.integer({ min: 300, max: 1500 }),
    windowKind: fc.constantFrom<WindowKind[]>('sliding', 'fixed'),
    steps: fc.array(step, { minLength: 1, maxLength: 40 }),
  });
}

export class StorePair {
  readonly mem = new MemoryStore();
  readonly policy: Policy;
  /** The stores' now, which each step moves. */
  now = 10_000;
  private readonly seqs = [0, 0, 0];
  private readonly calls = [0, 0, 0];
  private readSeq = 0;

  constructor(
    readonly redis: AnyStore,
    window: { windowMs: number; windowKind: WindowKind },
    private readonly horizonMs: number,
  ) {
    this.policy = { limit: 1000, windowMs: window.windowMs, windowKind: window.windowKind };
  }

  /** f on MemoryStore, then on the other store. */
  async both<T>(f: (s: AnyStore) => T | Promise<T>): Promise<[T, T]> {
    return [await f(this.mem), await f(this.redis)];
  }

  private request(gw: number, entry: SyncRequest['entries'][number]): SyncRequest {
    return {
      gatewayId: `g${gw}`,
      seq: ++this.seqs[gw],
      policy: this.policy,
      leaseTtlMs: 100,
      horizonMs: this.horizonMs,
      entries: [entry],
    };
  }

  /**
   * Gateway gw pushes the runs for key to both stores, each at now − off + shift (shift > 0: a
   * caller's clock ahead of the store's); returns the instants pushed, newest last.
   */
  async push(gw: number, key: string, runs: { off: number; n: number }[], shift = 0): Promise<number[]> {
    const admits: number[] = [];
    const counts: number[] = [];
    for (const r of [...runs].sort((a, b) => b.off - a.off)) {
      const t = this.now - r.off + shift;
      if (admits.length > 0 && admits[admits.length - 1] === t) counts[counts.length - 1] += r.n;
      else {
        admits.push(t);
        counts.push(r.n);
      }
    }
    const q = this.request(gw, { key, admits, counts, read: false, release: false, ask: 0 });
    await this.both((st) => st.sync(q, this.now));
    return admits;
  }

  /** A central-log call by gw for key on both stores: both decide alike. */
  async call(gw: number, key: string): Promise<void> {
    const call = { gatewayId: `g${gw}`, seq: ++this.calls[gw] };
    const [a, b] = await this.both((st) =>
      st.logAdmit({ key, policy: this.policy, cost: 1, call }, this.now),
    );
    expect(b.allowed).toBe(a.allowed);
  }

  /** key read back from both stores (MemoryStore's reply first) by a reader that pushes nothing. */
  async read(key: string): Promise<[SyncReply, SyncReply]> {
    const q = {
      ...this.request(0, { key, admits: [], read: true, release: false, ask: 0 }),
      gatewayId: 'reader',
      seq: ++this.readSeq,
    };
    const [a, b] = await this.both((st) => st.sync(q, this.now));
    return [a.replies[0], b.replies[0]];
  }

  /** key's count and listed expiries the same in both stores. */
  async expectSame(key: string): Promise<void> {
    const [ra, rb] = await this.read(key);
    expect(rb.count, key).toBe(ra.count);
    expect(listed(rb), key).toEqual(listed(ra));
  }
}
