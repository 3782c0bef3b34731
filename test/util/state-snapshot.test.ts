// StateSnapshot (src/util/state-snapshot.ts), the checked chunks' saves of the limiters: what it reads
// back equals the state written, shares nothing that changes with the original (new objects, arrays
// and buffers, prototypes kept), shares what `keep` names, the empty typed arrays and the top object's
// `replaced` fields, reads snapshots back in the order written, and refuses what copyState refuses.
import { describe, expect, it } from 'vitest';
import { EMPTY } from '../../src/designs/synced-view.js';
import { StateSnapshot } from '../../src/util/state-snapshot.js';
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
  buf = new Float64Array([1, 2.5, -0]);
  counts = new Uint32Array([7, 4_000_000_000]);
  nothing = new Float64Array(0);
  inner: Inner | null = new Inner();
  byGw = new Map<string, number>([['g0', 3]]);
  late: number[] | null = [4, -5];
  replies: number[] = [1, 2];
  name = 'x';
  flag = true;
  gone: number | undefined = undefined;
  nan = Number.NaN;
}

const outer = () => {
  const o = new Outer();
  o.log.insert(10);
  return o;
};

describe('StateSnapshot', () => {
  it('reads back what was written, sharing only what it shares', () => {
    const o = outer();
    const snap = new StateSnapshot(
      (v) => v === o.shared || v === EMPTY || v === AdmitLog.NONE,
      new Set(['replies']),
    );
    snap.reset();
    snap.write(o);
    snap.rewind();
    const c = snap.read<Outer>();
    expect(c).toBeInstanceOf(Outer);
    expect(c.log).toBeInstanceOf(RunLog);
    expect(c.inner).toBeInstanceOf(Inner);
    expect(c).toEqual(o);
    expect(Object.keys(c)).toEqual(Object.keys(o));
    expect(Object.is(c.buf[2], -0)).toBe(true);
    expect(c.counts).toBeInstanceOf(Uint32Array);
    expect(c.shared).toBe(o.shared);
    expect(c.none).toBe(EMPTY);
    expect(c.pending).toBe(AdmitLog.NONE);
    expect(c.nothing).toBe(o.nothing);
    expect(c.replies).toBe(o.replies);
    for (const k of ['log', 'buf', 'counts', 'inner', 'byGw', 'late'] as const) expect(c[k]).not.toBe(o[k]);
    expect(c.inner!.list).not.toBe(o.inner!.list);
  });

  it('a snapshot is the state at its writing: later changes to the original leave it', () => {
    const o = outer();
    const snap = new StateSnapshot((v) => v === o.shared || v === EMPTY || v === AdmitLog.NONE, new Set());
    snap.reset();
    snap.write(o);
    o.inner!.list.push(9);
    o.late!.push(7);
    o.buf[0] = 8;
    o.byGw.set('g1', 1);
    o.log.insert(20);
    o.inner = null;
    snap.rewind();
    const c = snap.read<Outer>();
    expect(c.inner!.list).toEqual([1, 2, 3]);
    expect(c.late).toEqual([4, -5]);
    expect(c.buf[0]).toBe(1);
    expect(c.byGw.size).toBe(1);
    expect(c.log.size).toBe(1);
  });

  it('many snapshots, past its first buffers, read back in order; reset starts again', () => {
    const keep = (v: object) => v === EMPTY || v === AdmitLog.NONE;
    const snap = new StateSnapshot(keep, new Set());
    for (let round = 0; round < 2; round++) {
      snap.reset();
      const all: Outer[] = [];
      for (let i = 0; i < 300; i++) {
        const o = outer();
        o.late = Array.from({ length: i % 7 }, (_, j) => j + round);
        o.buf = new Float64Array(i % 40).fill(i);
        all.push(o);
        snap.write(o);
      }
      snap.rewind();
      for (const o of all) {
        const c = snap.read<Outer>();
        expect({ ...c, shared: null }).toEqual({ ...o, shared: null });
        // an object of `keep`'s is shared; this one is not kept, so it is copied
        expect(c.shared).not.toBe(o.shared);
      }
    }
  });

  it('shares `replaced` fields of the top object only: a nested object copies its own', () => {
    // `replaced` names what the top object's class replaces whole; a nested object (of another class,
    // or of the top's own) may change a field of that name in place, so its copy is its own
    class Node {
      replies: number[] = [1, 2];
      child: Node | null = null;
    }
    class Holder {
      replies: number[] = [3];
      inner = new Node();
    }
    const top = new Node();
    top.child = new Node();
    const h = new Holder();
    const snap = new StateSnapshot(() => false, new Set(['replies']));
    snap.reset();
    snap.write(top);
    snap.write(h);
    top.child.replies.push(9);
    h.inner.replies.push(9);
    snap.rewind();
    const c = snap.read<Node>();
    const d = snap.read<Holder>();
    expect(c.replies).toBe(top.replies);
    expect(d.replies).toBe(h.replies);
    expect(c.child).toBeInstanceOf(Node);
    expect(c.child!.replies).not.toBe(top.child.replies);
    expect(c.child!.replies).toEqual([1, 2]);
    expect(d.inner.replies).not.toBe(h.inner.replies);
    expect(d.inner.replies).toEqual([1, 2]);
  });

  it('the fields after a value that grew the buffers to their very end are kept', () => {
    // a typed array past the buffers' room grows them to hold exactly it: the fields written after it
    // need room of their own (the generated writer reserves it again after every object)
    class Tail {
      big: Float64Array;
      a = 1.5;
      b = -2;
      flag = true;
      constructor(n: number) {
        this.big = new Float64Array(n).fill(3);
      }
    }
    for (const n of [1020, 5000, 70_000]) {
      const snap = new StateSnapshot(() => false, new Set());
      snap.reset();
      const o = new Tail(n);
      snap.write(o);
      snap.writeNumber(7);
      snap.rewind();
      expect(snap.read<Tail>()).toEqual(o);
      expect(snap.readNumber()).toBe(7);
    }
  });

  it('refuses functions, sets, and what is not a class instance at the top', () => {
    const snap = new StateSnapshot(() => false, new Set());
    class WithFn {
      f = () => 1;
    }
    class WithSet {
      s = new Set([1]);
    }
    expect(() => snap.write(new WithFn())).toThrow(RangeError);
    expect(() => snap.write(new WithSet())).toThrow(RangeError);
    expect(() => snap.write({ a: 1 })).toThrow(RangeError);
    expect(() => snap.write([1])).toThrow(RangeError);
  });
});
