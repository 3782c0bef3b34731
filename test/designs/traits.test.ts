import { describe, expect, it } from 'vitest';
import { DESIGN_IDS, makePolicy } from '../../src/config.js';
import {
  DESIGNS,
  decidesLocally,
  type FleetParams,
  NEED_STORE,
  touchesStore,
} from '../../src/designs/index.js';

// Every design's row in DESIGNS is complete, its facts agree with each other, and the state machine
// its `create` makes behaves as the row says: the code reads these facts instead of design names.
const fleet: FleetParams = {
  policy: makePolicy(10, 60_000),
  gateways: 4,
  syncMs: 1000,
  leaseTtlMs: 3000,
  horizonMs: 4000,
};

describe('DESIGNS', () => {
  it('has one row per design id and no other', () => {
    expect(Object.keys(DESIGNS).sort()).toEqual([...DESIGN_IDS].sort());
  });

  it('decides locally exactly the designs with no request-path store call', () => {
    const remote = DESIGN_IDS.filter((id) => !decidesLocally(id));
    expect(remote.sort()).toEqual(['central-log', 'leases-ask']);
  });

  for (const id of DESIGN_IDS) {
    const d = DESIGNS[id];
    describe(id, () => {
      it('has every fact, each a known value', () => {
        expect(typeof d.create).toBe('function');
        expect(['never', 'lazy', 'every']).toContain(d.syncs);
        expect([null, 'log', 'ask']).toContain(d.requestPath);
        expect(typeof d.grants).toBe('boolean');
        expect(typeof d.holdsKeys).toBe('boolean');
        expect(['L', 'share', 'none']).toContain(d.bound);
      });

      it('has facts that agree with each other', () => {
        // grants are renewed at syncs, every one of which may change the store
        expect(d.grants).toBe(d.syncs === 'every');
        // an ask is for more granted slots
        if (d.requestPath === 'ask') expect(d.grants).toBe(true);
        // the log holds the whole state at the store: the gateway keeps nothing, so syncs nothing
        expect(d.holdsKeys).toBe(d.requestPath !== 'log');
        if (d.requestPath === 'log') expect(d.syncs).toBe('never');
        // grants and the log cap every window at L; shares need no store at all
        if (d.grants || d.requestPath === 'log') expect(d.bound).toBe('L');
        if (d.bound === 'share') expect(touchesStore(d)).toBe(false);
        // nothing hard caps a window exactly when the gateways decide alone between lazy syncs
        expect(d.bound === 'none').toBe(d.syncs === 'lazy' && d.requestPath === null);
      });

      it('makes a state machine that behaves as its row says', () => {
        const lim = d.create(fleet, 0);
        expect(lim.design).toBe(id);
        // a fresh key: the log asks the store on every request, leases-ask asks for its first grant,
        // the others decide locally (leases: nothing granted yet, so no)
        const v = lim.decide(0, 1);
        expect(v === NEED_STORE).toBe(d.requestPath !== null);
        if (v !== NEED_STORE) {
          // what an admit leaves to tell the store: something exactly when the design syncs it
          const entry = lim.syncEntry('k', 1);
          if (d.syncs === 'lazy') expect(entry).not.toBeNull();
          if (d.syncs === 'never') expect(entry).toBeNull();
        }
      });
    });
  }
});
