/**
 * RefundQueue on its own (issue 32, Stryker on src/gateway/runtime): refunds numbered and bounded, those
 * waiting on a sync asked about again, one refundAdmits call per round, sends one at a time, and a
 * failed send kept ahead of newer refunds. A store object stands in for the store's reply (no Redis):
 * the queue only calls refundAdmits and reads its outcome.
 */
import { describe, expect, it } from 'vitest';
import { makePolicy } from '../../../src/config.js';
import type { KeyLimiter, TakeBack, TakesBack } from '../../../src/designs/key-limiter.js';
import { RefundQueue } from '../../../src/gateway/runtime/refund-queue.js';
import type { AsyncStore, Refund } from '../../../src/store/contract.js';

const policy = makePolicy(50, 1000);
const call = { gatewayId: 'g', policy, timeoutMs: 60_000 };

/** A store whose refundAdmits records each call and answers as `answer` says. */
function store(answer: (refunds: Refund[]) => Promise<number> = async (r) => r.length) {
  const calls: Refund[][] = [];
  const s = {
    refundAdmits: (_g: string, _p: unknown, refunds: Refund[]) => {
      calls.push(refunds.map((r) => ({ ...r })));
      return answer(refunds);
    },
  } as unknown as AsyncStore;
  return { s, calls };
}

/** Limiters that answer takeBack from a table by key. */
function limiters(answers: Record<string, TakeBack>) {
  const asked: string[] = [];
  const of = (key: string) =>
    ({
      takeBack: (at: number, cost: number, now: number) => {
        asked.push(`${key}@${at}x${cost}/${now}`);
        return answers[key];
      },
    }) as unknown as KeyLimiter & TakesBack;
  return { of, asked };
}

describe('RefundQueue', () => {
  it('numbers refunds from 1 and sends them in one call; the store’s answer counts them sent', async () => {
    const q = new RefundQueue(10);
    const { s, calls } = store();
    expect(await q.send(s, call, 5)).toBeNull();
    expect(calls).toEqual([]);
    q.add('a', 1, 2);
    q.add('b', 3, 1);
    expect(q.pending).toBe(2);
    expect(await q.send(s, call, 5)).toBeNull();
    expect(calls).toEqual([
      [
        { key: 'a', seq: 1, at: 1, cost: 2 },
        { key: 'b', seq: 2, at: 3, cost: 1 },
      ],
    ]);
    expect([q.sent, q.pending]).toEqual([2, 0]);
    q.add('c', 4, 1);
    await q.send(s, call, 6);
    expect(calls[1]).toEqual([{ key: 'c', seq: 3, at: 4, cost: 1 }]);
    expect(q.sent).toBe(3);
  });

  it('keeps at most max of each, dropping the oldest', async () => {
    const q = new RefundQueue(2);
    for (let i = 1; i <= 3; i++) q.add(`k${i}`, i, 1);
    expect(q.pending).toBe(2);
    for (let i = 1; i <= 3; i++) q.wait(`w${i}`, i, 1);
    expect(q.pending).toBe(4);
    const { of, asked } = limiters({ w1: 'store', w2: 'store', w3: 'store' });
    q.resolve(10, of, () => {});
    expect(asked).toEqual(['w2@2x1/10', 'w3@3x1/10']);
    const { s, calls } = store();
    await q.send(s, call, 10);
    // queued behind k2 and k3, which the bound drops for them
    expect(calls[0].map((r) => r.key)).toEqual(['w2', 'w3']);
  });

  it('asks each limiter again about a waiting refund: local, store, still waiting, or gone', () => {
    const q = new RefundQueue(10);
    const { of, asked } = limiters({ l: 'local', s: 'store', w: 'wait', g: 'gone' });
    q.resolve(1, of, () => {
      throw new Error('nothing waits');
    });
    expect(asked).toEqual([]);
    for (const k of ['l', 's', 'w', 'g']) q.wait(k, 7, 3);
    const local: number[] = [];
    q.resolve(20, of, (c) => local.push(c));
    expect(asked).toEqual(['l@7x3/20', 's@7x3/20', 'w@7x3/20', 'g@7x3/20']);
    expect(local).toEqual([3]);
    // the store's one queued, the waiting one kept
    expect(q.pending).toBe(2);
    q.resolve(30, of, (c) => local.push(c));
    expect(asked.slice(4)).toEqual(['w@7x3/30']);
    expect(q.pending).toBe(2);
  });

  it('a failed send is kept ahead of refunds added meanwhile, bounded, and says why with the first key', async () => {
    const q = new RefundQueue(3);
    q.add('a', 1, 1);
    q.add('b', 2, 1);
    let fail = true;
    const boom = new Error('boom');
    const { s, calls } = store(async (r) => {
      if (fail) {
        // added while the call is out
        q.add('c', 3, 1);
        q.add('d', 4, 1);
        throw boom;
      }
      return r.length;
    });
    const r = await q.send(s, call, 5);
    expect(r).toEqual({ key: 'a', cause: 'error', error: boom });
    expect(q.sent).toBe(0);
    expect(q.pending).toBe(3);
    fail = false;
    expect(await q.send(s, call, 6)).toBeNull();
    expect(calls[1].map((x) => x.seq)).toEqual([2, 3, 4]);
    expect([q.sent, q.pending]).toEqual([3, 0]);
  });

  it('a store without refundAdmits is sent nothing and the refunds stay queued', async () => {
    const q = new RefundQueue(3);
    q.add('a', 1, 1);
    expect(await q.send({} as AsyncStore, call, 5)).toBeNull();
    expect(q.pending).toBe(1);
  });

  it('sends one at a time: a second send starts once the first is answered', async () => {
    const q = new RefundQueue(10);
    let release = (_n: number) => {};
    const order: string[] = [];
    const { s } = store(
      (r) =>
        new Promise<number>((resolve) => {
          order.push(`start ${r.map((x) => x.key).join()}`);
          release = (n) => {
            order.push(`end ${r.map((x) => x.key).join()}`);
            resolve(n);
          };
        }),
    );
    q.add('a', 1, 1);
    const first = q.send(s, call, 1);
    await new Promise((r) => setImmediate(r));
    expect(order).toEqual(['start a']);
    // added while a's call is out: the next send waits for it
    q.add('b', 2, 1);
    const second = q.send(s, call, 2);
    await new Promise((r) => setImmediate(r));
    expect(order).toEqual(['start a']);
    release(1);
    await first;
    await new Promise((r) => setImmediate(r));
    expect(order).toEqual(['start a', 'end a', 'start b']);
    release(1);
    await second;
    expect(q.sent).toBe(2);
  });
});
