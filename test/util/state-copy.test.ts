// copyState (src/util/state-copy.ts), the checked chunks' undo of a key's state: a copy shares
// nothing that changes with the original, keeps what `keep` names and the empty typed arrays, keeps
// prototypes, and written over an earlier copy (`into`) equals a fresh one.
import { describe, expect, it } from 'vitest';
import { EMPTY } from '../../src/designs/synced-view.js';
import { copyState, copyStateSharing } from '../../src/util/state-copy.js';
import { AdmitLog, RunLog } from '../../src/window/run-log.js';

class Inner {
  n = 1;
  list: number[] = [1, 2, 3];
}

class Outer {
  readonly shared = { limit: 5 };
  none: number[] = EMPTY;
  log = new RunLog();
  pending = AdmitLog.NONE;
  buf = new Float64Array([1, 2]);
  nothing = new Float64Array(0);
  inner: Inner | null = new Inner();
  byGw = new Map<string, number>([['g0', 3]]);
  late: number[] | null = [4, -5];
}

describe('copyState', () => {
  const o = new Outer();
  o.log.insert(10);
  const keep = (v: object) => v === o.shared || v === EMPTY || v === AdmitLog.NONE;

  it('copies what changes, keeps what is kept, prototypes too', () => {
    const c = copyState(o, keep);
    expect(c).toBeInstanceOf(Outer);
    expect(c.log).toBeInstanceOf(RunLog);
    expect(c).toEqual(o);
    expect(c.shared).toBe(o.shared);
    expect(c.none).toBe(EMPTY);
    expect(c.pending).toBe(AdmitLog.NONE);
    expect(c.nothing).toBe(o.nothing);
    // the original changes; the copy does not
    o.inner!.list.push(9);
    o.late!.push(7);
    o.buf[0] = 8;
    o.byGw.set('g1', 1);
    o.log.insert(20);
    expect(c.inner!.list).toEqual([1, 2, 3]);
    expect(c.late).toEqual([4, -5]);
    expect(c.buf[0]).toBe(1);
    expect(c.byGw.size).toBe(1);
    expect(c.log.size).toBe(1);
  });

  it('written over an earlier copy: the same as a fresh one, its parts reused', () => {
    o.late = [1, 2, 3, 4];
    const first = copyState(o, keep);
    const buf = first.buf;
    o.inner = null;
    o.late = [7];
    o.buf[1] = 6;
    const again = copyState(o, keep, first);
    expect(again).toBe(first);
    expect(again).toEqual(copyState(o, keep));
    expect(again.buf).toBe(buf);
    expect(again.late).not.toBe(o.late);
  });

  it('copyStateSharing: the named fields of the object itself shared, the rest copied', () => {
    const shared = new Set(['late', 'list']);
    const src = new Outer();
    src.late = [1, 2];
    const c = copyStateSharing(src, keep, shared);
    expect(c).toBeInstanceOf(Outer);
    expect(c).toEqual(src);
    expect(c.late).toBe(src.late);
    // a field of that name below the object is copied
    expect(c.inner).not.toBe(src.inner);
    expect(c.inner!.list).not.toBe(src.inner!.list);
    expect(c.buf).not.toBe(src.buf);
    // written over an earlier copy: the same object, the shared field the original's again
    src.late = [3];
    const again = copyStateSharing(src, keep, shared, c);
    expect(again).toBe(c);
    expect(again.late).toBe(src.late);
    // copyState, with no names, still copies it (its own copier)
    expect(copyState(src, keep).late).not.toBe(src.late);
    expect(() => copyStateSharing({ a: 1 }, keep, shared)).toThrow(RangeError);
  });

  it('refuses what it cannot copy', () => {
    expect(() => copyState({ f: () => 1 }, () => false)).toThrow(RangeError);
    expect(() => copyState({ s: new Set([1]) }, () => false)).toThrow(RangeError);
  });
});
