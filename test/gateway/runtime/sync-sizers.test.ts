import { describe, expect, it } from 'vitest';
import { HorizonSizer } from '../../../src/gateway/runtime/horizon-sizer.js';
import { PartSizer } from '../../../src/gateway/runtime/part-sizer.js';

describe('PartSizer', () => {
  it('starts at 1,000 keys, then sizes a part to a quarter of the timeout: fixed cost + time per key', () => {
    const s = new PartSizer(200);
    expect(s.keys()).toBe(1_000);
    // a small part gives the fixed cost (10 ms), a large one the time per key past it (1 ms)
    s.note(10, 4);
    s.note(110, 100);
    expect(s.keys()).toBe(Math.floor((0.25 * 200 - 10) / 1));
  });

  it('grows by doubling while no time past the fixed cost is seen, up to 20,000', () => {
    const s = new PartSizer(200);
    s.note(5, 4);
    s.note(5, 100);
    expect(s.keys()).toBe(200);
    s.note(5, 15_000);
    expect(s.keys()).toBe(20_000);
  });

  it('never below 16 keys, however slow the store; the oldest of 8 samples goes first', () => {
    const s = new PartSizer(200);
    s.note(200, 16);
    expect(s.keys()).toBe(16);
    for (let i = 0; i < 8; i++) s.note(20, 1_000);
    // 20 ms per 1,000 keys: 50 ms is 2,500 keys
    expect(s.keys()).toBe(2_500);
  });
});

describe('HorizonSizer', () => {
  const bounds = { syncMs: 100, horizonMs: 400, windowMs: 10_000 };

  it('is the configured horizon until a cycle is seen, then twice the longest cycle, at most W', () => {
    const h = new HorizonSizer(bounds);
    expect(h.horizonMs()).toBe(400);
    h.startRound();
    // the first sync: its own duration (500 ms) plus Δ
    h.noteReply(1_000, 0, 500);
    expect(h.horizonMs()).toBe(1_200);
    h.startRound();
    // from the last round's first reply (store time 1,000) to now
    h.noteReply(3_000, 2_900, 3_000);
    expect(h.horizonMs()).toBe(4_000);
    h.startRound();
    h.noteReply(20_000, 19_990, 20_000);
    expect(h.horizonMs()).toBe(10_000);
  });

  it("a round with a failed part does not start the next round's cycle (an outage is not a cycle)", () => {
    const h = new HorizonSizer(bounds);
    h.startRound();
    h.noteReply(1_000, 990, 1_000);
    h.partFailed();
    h.startRound();
    h.noteReply(9_000, 8_990, 9_000);
    // 110 ms cycles only: the configured floor
    expect(h.horizonMs()).toBe(400);
  });
});
