// The lazy designs' per-key runs at large K with a chunk's look-ahead (src/replay/run/key-syncs.ts,
// `run`: only the holders with syncs left stay in its arrays, each with its own bound, its next
// request on the key) against the walk itself (ReplayFleet `walk: true`). One or two keys spread over
// up to 32 gateways, so a run has many holders, most done at once and a few stepped, each with a
// different bound: the same decision on every request, and the same key-syncs and store calls.
import fc from 'fast-check';
import { describe, it } from 'vitest';
import { DESIGN_IDS } from '../../src/config.js';
import { DESIGNS } from '../../src/designs/index.js';
import { FC_SEED, seeded } from '../support/fc-seed.js';
import { expectChunkedAsWalk } from './support.js';

// fixed unless FC_SEED asks for another (a failure names it)
const SEED = process.env.FC_SEED ? FC_SEED : 7021;

// the lazy designs without early syncs: the ones a chunk's look-ahead lets skip (KeySyncs.looksAhead)
const lazy = DESIGN_IDS.filter((id) => DESIGNS[id].syncs === 'lazy' && DESIGNS[id].earlySyncs === null);

// requests at one instant, within a Δ, within W, and gaps past W (keys go idle and are dropped)
const gap = fc.oneof(
  { weight: 3, arbitrary: fc.constant(0) },
  { weight: 6, arbitrary: fc.integer({ min: 0, max: 600 }) },
  { weight: 2, arbitrary: fc.integer({ min: 600, max: 4000 }) },
  { weight: 1, arbitrary: fc.integer({ min: 4000, max: 12_000 }) },
);

const wideCase = fc
  .record({
    design: fc.constantFrom(...lazy),
    K: fc.constantFrom(8, 16, 32),
    limit: fc.integer({ min: 2, max: 20 }),
    windowMs: fc.constantFrom(2000, 5000),
    syncMs: fc.constantFrom(250, 1000),
    keys: fc.integer({ min: 1, max: 2 }),
    chunk: fc.integer({ min: 5, max: 300 }),
  })
  .chain((c) =>
    fc
      .array(fc.tuple(gap, fc.integer({ min: 0, max: c.keys - 1 }), fc.integer({ min: 0, max: c.K - 1 })), {
        minLength: 30,
        maxLength: 160,
      })
      .map((steps) => ({ ...c, steps })),
  );

describe('replay: a lazy design decided key-grouped at large K, each holder with its own bound', () => {
  it('decides and counts as the walk', () => {
    fc.assert(
      fc.property(wideCase, (c) => {
        expectChunkedAsWalk(c, 3);
      }),
      { ...seeded({ numRuns: 300 }), seed: SEED },
    );
  }, 120_000);
});
