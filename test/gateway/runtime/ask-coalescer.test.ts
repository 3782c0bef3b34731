import { describe, expect, it } from 'vitest';
import { AGAIN, AskCoalescer, type AskWaiter } from '../../../src/gateway/runtime/ask-coalescer.js';

/** Runs queued microtasks (and the ones they queue). */
const flush = async () => {
  for (let i = 0; i < 10; i++) await Promise.resolve();
};

describe('AskCoalescer', () => {
  it('one ask in flight per key; it is gone once settled', () => {
    const c = new AskCoalescer();
    expect(c.inFlight('a')).toBeUndefined();
    const settle = c.open('a');
    expect(c.has('a')).toBe(true);
    expect(c.has('b')).toBe(false);
    settle();
    expect(c.has('a')).toBe(false);
  });

  it('a waiter decides only after the ask it waits on settled, and is counted', async () => {
    const c = new AskCoalescer();
    const settle = c.open('a');
    const order: string[] = [];
    const waiter: AskWaiter<string> = {
      ask: async () => 'asked',
      retry: () => {
        order.push('retry');
        return 'decided';
      },
    };
    const p = c.follow('a', c.inFlight('a')!, waiter);
    await flush();
    expect(order).toEqual([]);
    order.push('settle');
    settle();
    expect(await p).toBe('decided');
    expect(order).toEqual(['settle', 'retry']);
    expect(c.coalesced).toBe(1);
  });

  it('a waiter that goes again waits on the next ask in flight, or asks itself if there is none', async () => {
    const c = new AskCoalescer();
    const first = c.open('a');
    let retries = 0;
    let asked = 0;
    const waiter: AskWaiter<string> = {
      ask: async () => {
        asked++;
        return 'asked';
      },
      retry: () => (++retries < 3 ? AGAIN : 'decided'),
    };
    const p = c.follow('a', c.inFlight('a')!, waiter);
    // another request asks meanwhile: the waiter's second wait is on that one
    const second = c.open('a');
    first();
    await flush();
    expect(retries).toBe(1);
    expect(asked).toBe(0);
    second();
    await flush();
    // no ask in flight after its second retry: it asks itself
    expect(retries).toBe(2);
    expect(await p).toBe('asked');
    expect(asked).toBe(1);
    expect(c.coalesced).toBe(2);
  });

  it('an older ask settling does not drop a newer one for the key', () => {
    const c = new AskCoalescer();
    const first = c.open('a');
    c.open('a');
    first();
    expect(c.has('a')).toBe(true);
  });
});
