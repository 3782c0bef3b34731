/**
 * Deep snapshots of objects' states written one after another into reused buffers, for undoing work
 * done on them (the replay's checked chunks, src/replay/run/key-checkpoints.ts): what copyState
 * copies, as copyStateSharing shares it, but read back (`read`) as new objects only when the work is
 * undone, which is rare. A copy per object was written into objects of its own, cold in the caches at
 * each save (a fifth of adaptive-early's replay at K = 4); a snapshot writes its numbers, kinds and
 * references in three arrays, in order, each reused from the start at `reset`.
 *
 * Each value is written as a kind (below) and its parts: a number in `nums`; anything shared (`keep`,
 * a field of `replaced`, an empty typed array, a primitive other than a number) in `refs` as it is;
 * an array as its length and its elements; a typed array as its constructor and its elements; a class
 * instance as its prototype and its fields (the first instance's, as copyState takes them). A map is
 * copied (copyState) into `refs`; a function, or an object of a kind copyState refuses, is refused.
 */
import { copyState } from './state-copy.js';

const NUM = 0;
const REF = 1;
const ARRAY = 2;
const TYPED = 3;
const OBJECT = 4;

type Typed = Float64Array | Uint32Array | Uint8Array;
type TypedCtor = new (n: number) => Typed;
type Writer = (w: StateSnapshot, v: object) => void;
type Reader = (r: StateSnapshot, out: object) => void;

export class StateSnapshot {
  private kinds = new Uint8Array(1024);
  private nums = new Float64Array(1024);
  private refs: unknown[] = [];
  private kp = 0;
  private np = 0;
  private rp = 0;
  private readonly writers = new Map<object, Writer>();
  /** A snapshot's own objects' writers (their `replaced` fields shared), by prototype. */
  private readonly topWriters = new Map<object, Writer>();
  private readonly readers = new Map<object, Reader>();

  constructor(
    /** What is shared, not copied (configuration, sentinels compared by identity). */
    private readonly keep: (v: object) => boolean,
    /** The fields of a snapshot's top object that its class only ever replaces whole: shared. */
    private readonly replaced: ReadonlySet<string>,
  ) {}

  /** Forgets every snapshot: the next is written from the start (`refs` let go of). */
  reset(): void {
    this.kp = 0;
    this.np = 0;
    this.refs.fill(undefined, 0, this.rp);
    this.rp = 0;
  }

  /** Starts reading the snapshots from the first, in the order they were written. */
  rewind(): void {
    this.kp = 0;
    this.np = 0;
    this.rp = 0;
  }

  /** Writes a class instance's state (its fields in `replaced` shared). */
  write(o: object): void {
    const proto = Object.getPrototypeOf(o) as object;
    if (
      proto === Object.prototype ||
      proto === null ||
      this.keep(o) ||
      Array.isArray(o) ||
      ArrayBuffer.isView(o)
    )
      throw new RangeError('StateSnapshot: snapshots a class instance');
    this.kind(OBJECT);
    this.ref(proto);
    const w = this.topWriters.get(proto) ?? this.writerOf(proto, o, true);
    w(this, o);
  }

  /** The next snapshot written, as a new object. */
  read<T extends object>(): T {
    return this.get() as T;
  }

  /** A number of the caller's own, read back by `readNumber` in its place. */
  writeNumber(x: number): void {
    this.num(x);
  }

  readNumber(): number {
    return this.nums[this.np++];
  }

  /** A reference of the caller's own (shared, not copied), read back by `readRef` in its place. */
  writeRef(x: unknown): void {
    this.ref(x);
  }

  readRef<T>(): T {
    return this.refs[this.rp++] as T;
  }

  /**
   * Room for m more kinds and numbers: a generated writer writes a field that is a number or a
   * primitive straight into the buffers (`writerOf`).
   */
  reserve(m: number): void {
    if (this.kp + m > this.kinds.length) {
      const b = new Uint8Array(Math.max(2 * this.kinds.length, this.kp + m));
      b.set(this.kinds);
      this.kinds = b;
    }
    if (this.np + m > this.nums.length) {
      const b = new Float64Array(Math.max(2 * this.nums.length, this.np + m));
      b.set(this.nums);
      this.nums = b;
    }
  }

  private kind(k: number): void {
    if (this.kp === this.kinds.length) {
      const b = new Uint8Array(this.kp * 2);
      b.set(this.kinds);
      this.kinds = b;
    }
    this.kinds[this.kp++] = k;
  }

  private num(x: number): void {
    if (this.np === this.nums.length) {
      const b = new Float64Array(this.np * 2);
      b.set(this.nums);
      this.nums = b;
    }
    this.nums[this.np++] = x;
  }

  private ref(x: unknown): void {
    this.refs[this.rp++] = x;
  }

  /** A field's value (generated writers call it): a number at once, the rest by kind. */
  put(x: unknown): void {
    if (typeof x === 'number') {
      this.kind(NUM);
      this.num(x);
    } else if (x === null || typeof x !== 'object') {
      if (typeof x === 'function') throw new RangeError('StateSnapshot: a function cannot be copied');
      this.kind(REF);
      this.ref(x);
    } else this.putObject(x);
  }

  /** A field shared as it is (generated writers: `replaced`). */
  share(x: unknown): void {
    this.kind(REF);
    this.ref(x);
  }

  private putObject(v: object): void {
    if (this.keep(v)) {
      this.share(v);
      return;
    }
    if (Array.isArray(v)) {
      const n = v.length;
      this.kind(ARRAY);
      this.num(n);
      for (let i = 0; i < n; i++) this.put(v[i]);
      return;
    }
    if (ArrayBuffer.isView(v)) {
      if (v.byteLength === 0) {
        this.share(v);
        return;
      }
      if (!(v instanceof Float64Array || v instanceof Uint32Array || v instanceof Uint8Array))
        throw new RangeError(`StateSnapshot: a ${v.constructor.name} is not copied`);
      const n = v.length;
      this.kind(TYPED);
      this.ref(v.constructor);
      this.num(n);
      this.reserve(n);
      const nums = this.nums;
      let np = this.np;
      for (let i = 0; i < n; i++) nums[np++] = v[i];
      this.np = np;
      return;
    }
    const proto = Object.getPrototypeOf(v) as object;
    const w = this.writers.get(proto);
    if (w !== undefined) {
      this.kind(OBJECT);
      this.ref(proto);
      w(this, v);
      return;
    }
    if (proto === Object.prototype || proto === null || v instanceof Map) {
      // rare (no limiter holds one): a copy of its own, refusing what copyState refuses
      this.share(copyState(v, this.keep));
      return;
    }
    if (v instanceof Set || v instanceof WeakMap || v instanceof WeakSet || v instanceof Promise)
      throw new RangeError(`StateSnapshot: a ${v.constructor.name} is not copied`);
    this.kind(OBJECT);
    this.ref(proto);
    this.writerOf(proto, v, false)(this, v);
  }

  /** The next value, as `put` wrote it (generated readers call it). */
  get(): unknown {
    const k = this.kinds[this.kp++];
    if (k === NUM) return this.nums[this.np++];
    if (k === REF) return this.refs[this.rp++];
    if (k === ARRAY) {
      const n = this.nums[this.np++];
      const out = new Array<unknown>(n);
      for (let i = 0; i < n; i++) out[i] = this.get();
      return out;
    }
    if (k === TYPED) {
      const C = this.refs[this.rp++] as TypedCtor;
      const n = this.nums[this.np++];
      const out = new C(n);
      for (let i = 0; i < n; i++) out[i] = this.nums[this.np++];
      return out;
    }
    return this.object();
  }

  private object(): object {
    const proto = this.refs[this.rp++] as object;
    const out = Object.create(proto) as object;
    const r = this.readers.get(proto);
    if (r === undefined) throw new Error('StateSnapshot: read before written');
    r(this, out);
    return out;
  }

  /**
   * Per prototype, functions writing and reading its instances' fields one by one by name
   * (monomorphic; the first instance's fields: an ES2022 class defines every declared one in its
   * constructor). `top`: a snapshot's own object, whose `replaced` fields are shared.
   */
  private writerOf(proto: object, first: object, top: boolean): Writer {
    const writers = top ? this.topWriters : this.writers;
    const known = writers.get(proto);
    if (known !== undefined) return known;
    const names = Object.keys(first);
    for (const n of names)
      if (!/^[A-Za-z_$][\w$]*$/.test(n))
        throw new RangeError(`StateSnapshot: a field named ${n} is not copied`);
    const shared = (n: string) => top && this.replaced.has(n);
    // a number or another primitive straight into the buffers (room reserved for the fields left),
    // an object through `put` (after it, the buffers and places read again: it may have grown them)
    const N = names.length;
    const load = 'k = w.kinds; m = w.nums; kp = w.kp; np = w.np; rp = w.rp;';
    const store = 'w.kp = kp; w.np = np; w.rp = rp;';
    const field = (n: string, i: number) =>
      shared(n)
        ? `k[kp++] = ${REF}; r[rp++] = v.${n};`
        : `x = v.${n};
if (typeof x === 'number') { k[kp++] = ${NUM}; m[np++] = x; }
else if (x === null || (typeof x !== 'object' && typeof x !== 'function')) { k[kp++] = ${REF}; r[rp++] = x; }
else { ${store} w.put(x); w.reserve(${N - i - 1}); ${load} }`;
    const w = new Function(
      'w',
      'v',
      `w.reserve(${N});
let k, m, kp, np, rp, x;
const r = w.refs;
${load}
${names.map(field).join('\n')}
${store}`,
    ) as Writer;
    const r = new Function('r', 'out', names.map((n) => `out.${n} = r.get();`).join('\n')) as Reader;
    writers.set(proto, w);
    // a top object's reader is a nested one's: what it shared reads back as it is
    if (!this.readers.has(proto)) this.readers.set(proto, r);
    return w;
  }
}
