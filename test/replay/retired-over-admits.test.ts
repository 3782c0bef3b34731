// A key whose only difference from the central log is an admit beyond L (no honest rejection) is still
// summarized when it retires (KeyStats.affected, set as ReplayRun.decide counts it: the sweep no longer
// reads the tallies to find it).
import { describe, expect, it } from 'vitest';
import { ReplayRun } from '../../src/replay/run/engine.js';

describe('a retired key ranked by its over-admits alone', () => {
  it.each([0, 16])('is on the board after its retirement (chunk %i)', (chunk) => {
    // split, K = 3, L = 2 per 10 s: each gateway admits one (2/3 a share), so "x" once on each of the
    // three is admitted thrice, once beyond L, and never rejected; "y" keeps the log going past W,
    // every 6 s on the next gateway, admitted by both
    const run = new ReplayRun(
      { designs: ['split'], gateways: 3, limit: 2, windowMs: 10_000, syncMs: 1000, seed: 1, top: 3 },
      null,
      { chunk },
    );
    for (let g = 0; g < 3; g++) run.push({ t: g * 100, key: 'x', gateway: g });
    for (let i = 0; i < 8; i++) run.push({ t: 11_000 + i * 6000, key: 'y', gateway: i % 3 });
    const r = run.finish();
    expect(r.designs[0]).toMatchObject({ overAdmitted: 1, honestRejected: 0 });
    // "x" was retired (quiet for 50 s, W 10 s): only the board can name it now
    expect(r.top[0].byOverAdmitted.map((s) => s.key)).toEqual(['x']);
  });
});
