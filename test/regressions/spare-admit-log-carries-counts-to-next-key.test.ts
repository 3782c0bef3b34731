/**
 * A quiet key hands its small admit log back for the next key (AdmitLog.recycle → take). The log
 * kept its counts array, so the next key, each of whose runs held one admit, pushed `counts: [1, …]`
 * where a fresh log pushes none: the same count at the store, but its sync entries depended on which
 * key had used the log before (the batch builder's entry test passed or failed with the test files'
 * order). Fixed: a spare log is handed on without its counts.
 */
import { describe, expect, it } from 'vitest';
import { AdmitLog } from '../../src/window/run-log.js';

describe('a spare admit log', () => {
  it('is handed to the next key without the counts of the key before', () => {
    // take every spare first, so the log below is the next one handed out
    const drained: AdmitLog[] = [];
    for (let i = 0; i < 100; i++) drained.push(AdmitLog.take());
    const before = AdmitLog.take();
    before.append(10, 2); // a run of two admits: the log makes its counts
    expect(before.runCounts()).toEqual([2]);
    expect(before.recycle()).toBe(AdmitLog.NONE);
    const next = AdmitLog.take();
    expect(next).toBe(before);
    next.append(20, 1);
    expect(next.runTimes()).toEqual([20]);
    expect(next.runCounts()).toBeUndefined();
  });
});
