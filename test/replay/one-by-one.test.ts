// oneByOne: a stream of batches read an item at a time, as the readers' `arrivals` are.
import { describe, expect, it } from 'vitest';
import { oneByOne } from '../../src/replay/parse/one-by-one.js';

async function* batches(closed: { done: boolean }): AsyncGenerator<number[]> {
  try {
    yield [1, 2];
    yield [];
    yield [3];
    yield [4, 5, 6];
  } finally {
    closed.done = true;
  }
}

describe('oneByOne', () => {
  it('gives every item in order, skipping empty batches, then ends', async () => {
    const got: number[] = [];
    for await (const x of oneByOne(batches({ done: false }))) got.push(x);
    expect(got).toEqual([1, 2, 3, 4, 5, 6]);
  });

  it('gives calls made without waiting the next items in turn', async () => {
    const it = oneByOne(batches({ done: false }));
    const got = await Promise.all(Array.from({ length: 8 }, () => it.next()));
    expect(got.map((r) => (r.done ? 'end' : r.value))).toEqual([1, 2, 3, 4, 5, 6, 'end', 'end']);
  });

  it('closes the batches when the reader stops early', async () => {
    const closed = { done: false };
    for await (const x of oneByOne(batches(closed))) if (x === 3) break;
    expect(closed.done).toBe(true);
  });

  it('reads no batch until an item is asked for', async () => {
    let started = false;
    async function* lazy(): AsyncGenerator<number[]> {
      started = true;
      yield [1];
    }
    const it = oneByOne(lazy());
    expect(started).toBe(false);
    expect(await it.next()).toEqual({ value: 1, done: false });
    expect(started).toBe(true);
  });
});
