// KeyRecord keeps the grants that leave their record (handed back whole, or lapsed) for the next new
// grant (key-record.ts, newLease). A kept grant must come back as a new one in every field, and one
// still in a record must never be kept: a record's grants, driven through the same calls, read the
// same whatever another record left among the kept ones.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Policy } from '../../src/config.js';
import { KeyRecord } from '../../src/store/memory/key-record.js';
import { RecordTable } from '../../src/store/memory/record-table.js';
import { seeded } from '../support/fc-seed.js';

const policy: Policy = { limit: 40, windowMs: 100, windowKind: 'sliding' };
const gws = ['a', 'b', 'c', 'd'];

type Op = { gw: number; kind: 'grant' | 'release' | 'prune'; tag: number; n: number; dt: number };

const op: fc.Arbitrary<Op> = fc.record({
  gw: fc.nat(gws.length - 1),
  kind: fc.constantFrom('grant' as const, 'grant' as const, 'release' as const, 'prune' as const),
  tag: fc.nat(12),
  n: fc.integer({ min: 1, max: 5 }),
  // up to past a grant's count (its lapse, 30 on, and a window): grants lapse too
  dt: fc.nat(70),
});

/** Every gateway's grant as the record shows it, and its totals, after each call. */
function drive(ops: Op[], between?: () => void): unknown[] {
  const rec = new KeyRecord('k', policy, new RecordTable<KeyRecord>());
  const seen: unknown[] = [];
  let now = 0;
  for (const o of ops) {
    now += o.dt;
    const gw = gws[o.gw];
    if (o.kind === 'grant') rec.grant(gw, o.tag, o.n, now + 30, policy);
    else if (o.kind === 'release') {
      rec.release(gw, o.tag);
      rec.dropEmpty(gw);
    } else seen.push(rec.prune(now, policy, gw));
    between?.();
    for (const g of gws) {
      const l = rec.lease(g);
      seen.push(
        l === undefined
          ? null
          : {
              gw: l.gw,
              slots: l.slots,
              expiresAt: l.expiresAt,
              until: l.until,
              parts: l.parts.slice(0, l.len),
            },
      );
    }
    seen.push(rec.outstanding(), rec.deadline(policy), rec.isEmpty());
  }
  return seen;
}

describe('KeyRecord: kept grants', () => {
  it('a record reads the same whatever grants another left to be taken up again (property)', () => {
    fc.assert(
      fc.property(fc.array(op, { maxLength: 80 }), fc.array(op, { maxLength: 80 }), (ops, noise) => {
        const alone = drive(ops);
        // another record's calls between each of this one's: its grants come and go through the kept ones
        const other = new KeyRecord('other', policy, new RecordTable<KeyRecord>());
        let i = 0;
        let t = 0;
        const mixed = drive(ops, () => {
          for (let j = 0; j < 3 && i < noise.length; j++, i++) {
            const o = noise[i];
            t += o.dt;
            const gw = gws[o.gw];
            if (o.kind === 'grant') other.grant(gw, 100 + o.tag, 7 * o.n, t + 55, policy);
            else if (o.kind === 'release') {
              other.release(gw, 100 + o.tag);
              other.dropEmpty(gw);
            } else other.prune(t, policy);
          }
        });
        expect(mixed).toEqual(alone);
      }),
      seeded({ numRuns: 400 }),
    );
  });

  it('a grant handed back whole is taken up by the next new grant, with no part and its own lapse', () => {
    const rec = new KeyRecord('k', policy, new RecordTable<KeyRecord>());
    rec.grant('a', 2, 3, 50, policy);
    rec.grant('b', 4, 5, 70, policy);
    rec.release('b', 10);
    rec.dropEmpty('b');
    expect(rec.lease('b')).toBe(undefined);
    const c = rec.grant('c', 6, 1, 90, policy);
    // b's grant (unless the kept ones are full), made new: b's part gone, c's lapse
    expect({ gw: c.gw, slots: c.slots, expiresAt: c.expiresAt, parts: c.parts.slice(0, c.len) }).toEqual({
      gw: 'c',
      slots: 1,
      expiresAt: 90,
      parts: [6, 1],
    });
    expect(rec.outstanding()).toBe(4);
  });
});
