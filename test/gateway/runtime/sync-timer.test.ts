import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { SyncTimer } from '../../../src/gateway/runtime/sync-timer.js';

/** The sync timer on fake timers (issue 32: Stryker found its phase and its stop reached by no test). */
describe('SyncTimer', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    // the spies first: one left on the fake setTimeout would outlive useRealTimers in a shared worker
    vi.restoreAllMocks();
    vi.useRealTimers();
  });

  it('ticks first at its phase (random × the interval), then every interval', () => {
    const ticks: number[] = [];
    const t = new SyncTimer(
      100,
      () => 0.25,
      () => ticks.push(Date.now()),
    );
    const t0 = Date.now();
    expect(t.running).toBe(false);
    t.start();
    expect(t.running).toBe(true);
    vi.advanceTimersByTime(24);
    expect(ticks).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(ticks).toEqual([t0 + 25]);
    vi.advanceTimersByTime(99);
    expect(ticks).toEqual([t0 + 25]);
    vi.advanceTimersByTime(1 + 200);
    expect(ticks).toEqual([t0 + 25, t0 + 125, t0 + 225, t0 + 325]);
  });

  it('a second start changes nothing; stop ends it before or after the first tick, and it may start again', () => {
    let ticks = 0;
    const t = new SyncTimer(
      100,
      () => 0.5,
      () => ticks++,
    );
    t.start();
    t.start();
    vi.advanceTimersByTime(50);
    expect(ticks).toBe(1);
    t.stop();
    expect(t.running).toBe(false);
    vi.advanceTimersByTime(1000);
    expect(ticks).toBe(1);
    // stopped before its first tick: none comes
    t.start();
    vi.advanceTimersByTime(49);
    t.stop();
    t.stop();
    vi.advanceTimersByTime(1000);
    expect(ticks).toBe(1);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('never keeps the process alive: both its timers are unref’d', () => {
    const timeouts = vi.spyOn(globalThis, 'setTimeout');
    const intervals = vi.spyOn(globalThis, 'setInterval');
    const t = new SyncTimer(
      10,
      () => 0.5,
      () => {},
    );
    t.start();
    const first = timeouts.mock.results.at(-1)?.value as ReturnType<typeof setTimeout>;
    expect(first.hasRef()).toBe(false);
    vi.advanceTimersByTime(5);
    const each = intervals.mock.results.at(-1)?.value as ReturnType<typeof setInterval>;
    expect(each.hasRef()).toBe(false);
    t.stop();
  });
});
