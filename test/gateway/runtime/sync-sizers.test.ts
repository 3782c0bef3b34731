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

describe('sizers: which samples count (issue 32, Stryker)', () => {
  const bounds = { syncMs: 100, horizonMs: 400, windowMs: 10_000 };

  it('HorizonSizer: a long cycle counts for the last 8 samples only', () => {
    const h = new HorizonSizer(bounds);
    h.startRound();
    // one slow sync: 1,000 ms + Δ
    h.noteReply(1_000, 0, 1_000);
    expect(h.horizonMs()).toBe(2_200);
    for (let i = 0; i < 7; i++) {
      h.startRound();
      h.noteReply(0, 0, 1);
    }
    expect(h.horizonMs()).toBe(2_200);
    h.startRound();
    h.noteReply(0, 0, 1);
    // Δ + 1 ms, twice: under the configured floor
    expect(h.horizonMs()).toBe(400);
  });

  it('HorizonSizer: a round’s cycles run from the first reply of the round before, not its last', () => {
    const h = new HorizonSizer(bounds);
    h.startRound();
    h.noteReply(1_000, 990, 1_000);
    h.noteReply(1_500, 1_490, 1_500);
    h.startRound();
    // from 1,000 (not 1,500) to 2,600: 1,600 ms, twice 3,200
    h.noteReply(2_600, 2_590, 2_600);
    expect(h.horizonMs()).toBe(3_200);
  });

  it('HorizonSizer: twice the longest cycle, rounded up to a whole ms', () => {
    const h = new HorizonSizer(bounds);
    h.startRound();
    h.noteReply(0, 0, 300.25);
    expect(h.horizonMs()).toBe(801);
  });

  it('PartSizer: the fixed cost is never more than the shortest part, small or not', () => {
    const s = new PartSizer(200);
    // a small part that took 30 ms, a large one 20 ms: the fixed cost is 20, not 30
    s.note(30, 4);
    s.note(20, 100);
    s.note(120, 100);
    // per key: (0 + 100) / 2 / 100 = 0.5 ms: (50 − 20) / 0.5 = 60 keys
    expect(s.keys()).toBe(60);
  });

  it('HorizonSizer: the ring overwrites its oldest sample in turn, the second after the first', () => {
    const h = new HorizonSizer(bounds);
    const short = () => {
      h.startRound();
      h.noteReply(0, 0, 1);
    };
    short();
    h.startRound();
    h.noteReply(1_000, 0, 1_000);
    for (let i = 0; i < 7; i++) short();
    // the 9th sample takes the first's slot: the long one (the second) is still there
    expect(h.horizonMs()).toBe(2_200);
    short();
    expect(h.horizonMs()).toBe(400);
  });

  it('PartSizer: the ring overwrites its oldest sample in turn, the second after the first', () => {
    const s = new PartSizer(200);
    s.note(20, 1_000);
    // a slow one, second: 200 ms per 1,000 keys
    s.note(200, 1_000);
    for (let i = 0; i < 6; i++) s.note(20, 1_000);
    s.note(20, 1_000);
    // still in: per key (7 · 0.02 + 0.2) / 8 = 0.0425 ms → 1,176 keys
    expect(s.keys()).toBe(Math.floor(50 / ((7 * 0.02 + 0.2) / 8)));
    s.note(20, 1_000);
    expect(s.keys()).toBe(2_500);
  });

  it('PartSizer: without a small part there is no fixed cost', () => {
    const s = new PartSizer(200);
    s.note(20, 100);
    s.note(120, 100);
    // per key (0.2 + 1.2) / 2 = 0.7 ms: 50 / 0.7 = 71 keys (60 had the shortest part been the fixed cost)
    expect(s.keys()).toBe(71);
  });
});
