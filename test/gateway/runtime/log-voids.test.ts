import { describe, expect, it } from 'vitest';
import { LogVoids } from '../../../src/gateway/runtime/log-voids.js';

describe('LogVoids', () => {
  it('numbers calls from 1 and counts the voids the store answered', () => {
    const v = new LogVoids(10);
    expect(v.nextSeq()).toBe(1);
    expect(v.nextSeq()).toBe(2);
    v.add({ key: 'a', seq: 1, cost: 1 });
    v.add({ key: 'b', seq: 2, cost: 3 });
    expect(v.pending).toBe(2);
    const taken = v.take();
    expect(v.pending).toBe(0);
    expect(v.settled(taken, { ok: true, value: undefined })).toBeNull();
    expect(v.voided).toBe(2);
  });

  it('keeps unanswered voids ahead of those added meanwhile, and names the first', () => {
    const v = new LogVoids(10);
    v.add({ key: 'a', seq: 1, cost: 1 });
    const taken = v.take();
    v.add({ key: 'b', seq: 2, cost: 1 });
    expect(v.settled(taken, { ok: false, timedOut: true, cause: 'refused' })).toEqual({
      key: 'a',
      timedOut: true,
      cause: 'refused',
      error: undefined,
    });
    expect(v.voided).toBe(0);
    expect(v.take().map((x) => x.key)).toEqual(['a', 'b']);
  });

  it('holds at most `max`, dropping the oldest', () => {
    const v = new LogVoids(2);
    for (let i = 1; i <= 3; i++) v.add({ key: `k${i}`, seq: i, cost: 1 });
    expect(v.take().map((x) => x.seq)).toEqual([2, 3]);
    v.add({ key: 'x', seq: 4, cost: 1 });
    v.add({ key: 'y', seq: 5, cost: 1 });
    const taken = v.take();
    v.add({ key: 'z', seq: 6, cost: 1 });
    v.settled(taken, { ok: false, timedOut: false, cause: 'error', error: new Error('down') });
    expect(v.take().map((x) => x.seq)).toEqual([5, 6]);
  });
});
