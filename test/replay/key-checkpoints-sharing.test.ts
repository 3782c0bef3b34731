// The checked chunks' saves share the limiters' arrays named in REPLACED_FIELDS
// (src/replay/run/key-checkpoints.ts) instead of copying them: sound only while the designs replace
// those arrays whole and never write into them. Here every such array a save shares is frozen (a
// write into it throws: ES modules are strict) on dense adaptive-early streams at K = 2–8, chunked
// at random, whose chunks both stand and are undone, and every decision and the whole result must
// be time order's.
import fc from 'fast-check';
import { describe, expect, it, vi } from 'vitest';
import type { KeyLimiter } from '../../src/designs/key-limiter.js';
import { ReplayRun } from '../../src/replay/run/engine.js';
import { ReplayFleet } from '../../src/replay/run/fleet.js';
import { KeyCheckpoints, REPLACED_FIELDS, type TrackState } from '../../src/replay/run/key-checkpoints.js';
import type { ReplaySettings } from '../../src/replay/run/result.js';
import { FC_SEED, seeded } from '../support/fc-seed.js';
import { stepArrivals, stepsOf } from './support.js';

const SEED = process.env.FC_SEED ? FC_SEED : 4646;

function freezeShared(lim: KeyLimiter | null): void {
  if (lim === null) return;
  const fields = lim as unknown as Record<string, unknown>;
  for (const n of REPLACED_FIELDS) {
    const v = fields[n];
    if (Array.isArray(v)) Object.freeze(v);
  }
}

const aCase = fc
  .record({
    K: fc.integer({ min: 2, max: 8 }),
    limit: fc.integer({ min: 2, max: 12 }),
    syncMs: fc.constantFrom(250, 700, 1000),
    reads: fc.constantFrom('every-sync' as const, 'on-request' as const),
    keys: fc.integer({ min: 1, max: 8 }),
    chunk: fc.integer({ min: 5, max: 300 }),
  })
  .chain((c) =>
    stepsOf(
      fc.oneof(fc.constant(0), fc.integer({ min: 0, max: 300 }), fc.integer({ min: 300, max: 6000 })),
      c.keys,
      fc.integer({ min: 0, max: c.K - 1 }),
      [],
      { minLength: 20, maxLength: 300 },
    ).map((steps) => ({ ...c, steps })),
  );

describe('checked chunks: the arrays a save shares are never written', () => {
  it('frozen at every save, adaptive-early still decides as time order', () => {
    const save = KeyCheckpoints.prototype.save;
    const saving = vi.spyOn(KeyCheckpoints.prototype, 'save').mockImplementation(function (
      this: KeyCheckpoints,
      key: string,
      track: TrackState | undefined,
    ) {
      save.call(this, key, track);
      if (track === undefined) return;
      freezeShared(track.lim);
      for (const s of track.others ?? []) if (s !== null) freezeShared(s.lim);
    });
    const stood = vi.spyOn(ReplayFleet.prototype, 'endCheck');
    const undone = vi.spyOn(ReplayFleet.prototype, 'rollback');
    try {
      fc.assert(
        fc.property(aCase, (c) => {
          const list = stepArrivals(c.steps);
          const settings: ReplaySettings = {
            designs: ['adaptive-early'],
            gateways: c.K,
            limit: c.limit,
            windowMs: 5000,
            syncMs: c.syncMs,
            seed: 3,
            top: 3,
            reads: c.reads,
          };
          const runOf = (chunk: number | undefined) => {
            const decided: number[] = [];
            const r = new ReplayRun(settings, null, {
              ...(chunk === undefined ? {} : { chunk }),
              onDecide: (seq, d) => {
                decided[seq] = d[1];
              },
            });
            for (const a of list) r.push(a);
            return { decided, result: r.finish() };
          };
          const time = runOf(undefined);
          const checked = runOf(c.chunk);
          expect(checked.decided).toEqual(time.decided);
          expect(checked.result).toEqual(time.result);
        }),
        { ...seeded({ numRuns: 300 }), seed: SEED },
      );
      // the saves were taken, and chunks both stood and were undone
      expect(saving.mock.calls.length).toBeGreaterThan(1000);
      expect(stood.mock.calls.length).toBeGreaterThan(50);
      expect(undone.mock.calls.length).toBeGreaterThan(50);
    } finally {
      saving.mockRestore();
      stood.mockRestore();
      undone.mockRestore();
    }
  }, 120_000);
});
