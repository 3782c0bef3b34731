import { describe, expect, it } from 'vitest';
import { runSimulation } from '../../src/sim/engine.js';
import type { RunParams } from '../../src/sim/types.js';

/**
 * adaptive-early reads the others' admit rate from successive reads (the count's growth over the time
 * since the last read that found growth). The simulator skipped a lazy design's reads with nothing to
 * push whose result a later read overwrites before the gateway's next arrival — harmless for adaptive,
 * not for this rate: with the shortcuts on, decision 2,075 of this run (the engine-vs-reference property
 * test's counterexample, FC_SEED=565051785) differed from running every sync. The simulator now runs
 * every sync of a design with early syncs.
 */
const p: RunParams = {
  design: 'adaptive-early',
  gateways: 2,
  windowS: 1,
  limit: 4,
  windowKind: 'sliding',
  alignedSyncs: false,
  traffic: 'onset',
  load: 0.3,
  routing: 'even',
  minutes: 1,
  seed: 1870651379,
  attack: 'pick',
  floodLoad: 20,
  syncS: 0.3,
};

describe('regression: adaptive-early with skipped reads decided differently', () => {
  it('the shortcuts decide request by request as every sync does', () => {
    const every = runSimulation(p, { skip: false, everySync: true, recordDecisions: true }).decisions!;
    const fast = runSimulation(p, { recordDecisions: true }).decisions!;
    expect(fast.length).toBe(every.length);
    expect(Buffer.from(fast).equals(Buffer.from(every))).toBe(true);
  });
});
