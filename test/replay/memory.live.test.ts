// Live: real memory measured (the heap after full collections), several million arrivals.
import { describe, expect, it } from 'vitest';
import { replayChurn } from './memory-support.js';

const gc = (globalThis as { gc?: () => void }).gc;

describe('replay streams: the heap does not grow with the arrivals', () => {
  it('2,000,000 arrivals: the heap after the last half million is within 8 MB of after the first', () => {
    if (gc === undefined) throw new Error('run with --expose-gc (the live project does)');
    const heap: number[] = [];
    const w = replayChurn(2_000_000, 500_000, () => {
      gc();
      heap.push(process.memoryUsage().heapUsed);
    });
    expect(heap).toHaveLength(4);
    console.log(
      `heap after 0.5, 1, 1.5, 2 M arrivals: ${heap.map((h) => (h / 2 ** 20).toFixed(1)).join(', ')} MB`,
    );
    expect(heap[3] - heap[0]).toBeLessThan(8 * 2 ** 20);
    expect(w.maxLive).toBeLessThanOrEqual(80);
  }, 120_000);
});
