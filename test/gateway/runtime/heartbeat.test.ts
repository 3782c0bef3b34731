import { describe, expect, it } from 'vitest';
import { liveWithinMs, resolveGatewayOptions } from '../../../src/gateway/options.js';
import { Heartbeats } from '../../../src/gateway/runtime/heartbeat.js';
import { MemoryStore } from '../../../src/store/memory-store.js';
import { TestAsyncStore } from '../../support/async-memory-store.js';

/**
 * gateways 'auto': one heartbeat, its count becoming K (issue 32: Stryker found the beat's own fields
 * and the failure count reached by no unit test; test/gateway/runtime/auto-gateways.test.ts runs
 * whole fleets). The store runs on the caller's time: `now` below is the store's time.
 */
const D = 100;
const TIMEOUT = 50;

function setup(initialGateways = 1) {
  const memory = new MemoryStore();
  const store = new TestAsyncStore(memory);
  const options = resolveGatewayOptions(
    {
      id: 'me',
      design: 'shared-counter',
      limit: 10,
      windowMs: 60_000,
      gateways: 'auto',
      initialGateways,
      syncMs: D,
    },
    TIMEOUT,
  );
  let changes = 0;
  const hb = new Heartbeats({
    store,
    incarnation: 'me-1',
    options,
    storeTimeoutMs: TIMEOUT,
    gatewaysChanged: () => changes++,
  });
  const other = (id: string, now: number, leaving = false) =>
    memory.heartbeat(
      { gatewayId: id, policy: options.policy, liveWithinMs: liveWithinMs(options, TIMEOUT), leaving },
      now,
    );
  return { memory, store, options, hb, other, changes: () => changes };
}

describe('Heartbeats', () => {
  it('the store’s count of live members becomes K, and a change is told', async () => {
    const s = setup();
    s.other('a', 0);
    s.other('b', 0);
    await s.hb.beat(false, 10);
    expect(s.options.fleet.gateways).toBe(3);
    expect(s.changes()).toBe(1);
    // the same count again changes nothing
    await s.hb.beat(false, 20);
    expect(s.changes()).toBe(1);
    // a member that left is counted out at the next beat
    s.other('b', 30, true);
    await s.hb.beat(false, 40);
    expect(s.options.fleet.gateways).toBe(2);
    expect(s.changes()).toBe(2);
  });

  it('beats with its own liveness window: Δ · 3 + the store timeout', async () => {
    const live = 3 * D + TIMEOUT;
    const inside = setup();
    await inside.hb.beat(false, 0);
    expect(inside.other('x', live).live).toBe(2);
    const past = setup();
    await past.hb.beat(false, 0);
    expect(past.other('x', live + 1).live).toBe(1);
  });

  it('the last beat takes it out of the count at once, and leaves K as it was', async () => {
    const s = setup();
    s.other('a', 0);
    await s.hb.beat(false, 10);
    expect(s.options.fleet.gateways).toBe(2);
    await s.hb.beat(true, 20);
    expect(s.options.fleet.gateways).toBe(2);
    expect(s.changes()).toBe(1);
    expect(s.other('a', 30).live).toBe(1);
  });

  it('a failed beat is counted and leaves K', async () => {
    const s = setup();
    s.other('a', 0);
    await s.hb.beat(false, 10);
    s.store.mode = 'fail';
    s.other('b', 15);
    await s.hb.beat(false, 20);
    expect(s.hb.failures).toBe(1);
    expect(s.options.fleet.gateways).toBe(2);
  });

  it('K stays at least initialGateways for one liveness window after the first count', async () => {
    const s = setup(4);
    expect(s.options.fleet.gateways).toBe(4);
    // the first count at store time 1000: alone, but the others may not have beaten yet
    await s.hb.beat(false, 1000);
    expect(s.options.fleet.gateways).toBe(4);
    const live = 3 * D + TIMEOUT;
    await s.hb.beat(false, 1000 + live - 1);
    expect(s.options.fleet.gateways).toBe(4);
    await s.hb.beat(false, 1000 + live);
    expect(s.options.fleet.gateways).toBe(1);
  });
});
