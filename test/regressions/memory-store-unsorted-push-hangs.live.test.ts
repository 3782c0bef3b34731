import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';

// Found by the cached-designs property test with a varying seed: a gateway whose clock went back
// (decisions at 1033, 1050, then 1026) pushed its admits out of order; MemoryStore merged them as
// if ascending, its log went out of order, and the next sync's sweep looped forever on a deadline
// already past. The store now sorts a push that is out of order. Run in a child process with a time
// limit, so that a hang fails the test instead of stalling the suite.

const script = `
import { makePolicy } from './src/config.js';
import { MemoryStore } from './src/store/memory-store.js';
import { expandRuns } from './src/window/runs.js';
const policy = makePolicy(5, 94, 'fixed');
const store = new MemoryStore();
const req = (seq, admits) => ({ gatewayId: 'g', seq, policy, leaseTtlMs: 51, horizonMs: 26,
  entries: [{ key: 'k', admits, read: true, release: false, ask: 0 }] });
const a = store.sync(req(1, [1033, 1050, 1026]), 1033).replies[0];
const b = store.sync(req(2, []), 1041).replies[0];
// expiries as one entry per admit (a reply joins equal instants into runs)
console.log(JSON.stringify([a.count, expandRuns(a.expiries, a.expiryCounts), b.count, expandRuns(b.expiries, b.expiryCounts)]));
`;

describe('MemoryStore: admits pushed out of order', () => {
  it('are counted and aged as if sorted, and the next sync returns', () => {
    const r = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
      cwd: process.cwd(),
      encoding: 'utf8',
      timeout: 20_000,
    });
    expect(r.error, 'the store hung').toBeUndefined();
    expect(r.status, r.stderr).toBe(0);
    // fixed window of 94 ms: 1026 and 1033 count until 1034, 1050 until 1128
    expect(JSON.parse(r.stdout)).toEqual([3, [1034, 1034], 1, []]);
  });
});
