/**
 * A deep copy of an object's state, for undoing work done on it (the replay's checked chunks,
 * src/replay/run/key-checkpoints.ts): class instances keep their prototype, arrays, typed arrays and
 * maps are copied, and what `keep` names is shared, not copied (configuration, and sentinels compared
 * by identity, such as an empty array that means "none"). An empty typed array is always shared: it
 * cannot change. A function, or an object of a kind it does not know, is refused (RangeError): state
 * it would copy wrong must not be copied silently.
 *
 * `into`, a copy made before and never handed to anyone since, is written over where it can (its
 * objects, arrays and buffers of the right size reused): copying a key's state at every chunk then
 * makes no garbage (fresh copies of every live key, kept for a chunk, were promoted and collected
 * whole: a third of adaptive-early's replay time).
 */
export function copyState<T extends object>(o: T, keep: (v: object) => boolean, into?: T): T {
  return copyValue(into, o, keep) as T;
}

/**
 * copyState, but the fields of `o` itself (a class instance) named in `replaced` are shared, not
 * copied: fields whose value its class only ever replaces, never writes into (a view's arrays set
 * whole from each reply), so the original's value stays as it was and the copy may hold it. The
 * fields below `o` are copied as copyState copies them.
 */
export function copyStateSharing<T extends object>(
  o: T,
  keep: (v: object) => boolean,
  replaced: ReadonlySet<string>,
  into?: T,
): T {
  const proto = Object.getPrototypeOf(o) as object;
  if (proto === Object.prototype || proto === null || keep(o) || Array.isArray(o) || ArrayBuffer.isView(o))
    throw new RangeError('copyStateSharing: copies a class instance');
  const out = (
    into !== undefined && into !== o && Object.getPrototypeOf(into) === proto ? into : Object.create(proto)
  ) as object;
  copierOf(proto, o, replaced)(out, o, keep);
  return out as T;
}

function copyValue(into: unknown, v: unknown, keep: (v: object) => boolean): unknown {
  if (v === null || typeof v !== 'object') {
    if (typeof v === 'function') throw new RangeError('copyState: a function cannot be copied');
    return v;
  }
  if (keep(v)) return v;
  const reuse = into !== null && typeof into === 'object' && into !== v && !keep(into) ? into : undefined;
  const proto = Object.getPrototypeOf(v) as object;
  // a class instance of a kind copied before first (most of a limiter's parts): no kind tests
  const known = COPIERS.get(proto);
  if (known !== undefined) {
    const out = (
      reuse !== undefined && Object.getPrototypeOf(reuse) === proto ? reuse : Object.create(proto)
    ) as object;
    known(out, v, keep);
    return out;
  }
  if (Array.isArray(v)) {
    const n = v.length;
    const out = Array.isArray(reuse) ? reuse : new Array<unknown>(n);
    // setting an array's length is a runtime call, even to what it is
    if (out.length !== n) out.length = n;
    for (let i = 0; i < n; i++) {
      const x: unknown = v[i];
      out[i] =
        x === null || (typeof x !== 'object' && typeof x !== 'function') ? x : copyValue(out[i], x, keep);
    }
    return out;
  }
  if (ArrayBuffer.isView(v)) {
    if (v.byteLength === 0) return v;
    if (!(v instanceof Float64Array || v instanceof Uint32Array || v instanceof Uint8Array))
      throw new RangeError(`copyState: a ${v.constructor.name} is not copied`);
    if (
      reuse !== undefined &&
      reuse.constructor === v.constructor &&
      (reuse as typeof v).length === v.length
    ) {
      (reuse as typeof v).set(v);
      return reuse;
    }
    return v.slice();
  }
  if (v instanceof Map) {
    const out = new Map<unknown, unknown>();
    for (const [k, x] of v) out.set(k, copyValue(undefined, x, keep));
    return out;
  }
  if (v instanceof Set || v instanceof WeakMap || v instanceof WeakSet || v instanceof Promise)
    throw new RangeError(`copyState: a ${v.constructor.name} is not copied`);
  const out = (
    reuse !== undefined && Object.getPrototypeOf(reuse) === proto ? reuse : Object.create(proto)
  ) as object;
  if (proto === Object.prototype || proto === null) {
    // plain objects differ in shape: field by field as each has them
    const src = v as Record<string, unknown>;
    const o = out as Record<string, unknown>;
    for (const k of Object.keys(src)) o[k] = copyValue(o[k], src[k], keep);
  } else copierOf(proto, v)(out, v, keep);
  return out;
}

type Copier = (out: object, v: object, keep: (v: object) => boolean) => void;

/**
 * Per prototype, a function copying its instances' fields one by one by name (monomorphic, where a
 * loop over Object.keys was the replay's slowest part). The fields are the first instance's: an
 * ES2022 class defines every declared field in its constructor, so its instances have the same.
 */
const COPIERS = new Map<object, Copier>();
/** The same per set of shared field names (copyStateSharing). */
const SHARING = new WeakMap<ReadonlySet<string>, Map<object, Copier>>();
const NONE_SHARED: ReadonlySet<string> = new Set();

function copierOf(proto: object, first: object, replaced = NONE_SHARED): Copier {
  let cache = COPIERS;
  if (replaced !== NONE_SHARED) {
    cache = SHARING.get(replaced) ?? new Map<object, Copier>();
    SHARING.set(replaced, cache);
  }
  const known = cache.get(proto);
  if (known !== undefined) return known;
  const names = Object.keys(first);
  for (const n of names)
    if (!/^[A-Za-z_$][\w$]*$/.test(n)) throw new RangeError(`copyState: a field named ${n} is not copied`);
  const body = names
    .map((n) =>
      replaced.has(n)
        ? `out.${n} = v.${n};`
        : `x = v.${n}; out.${n} = x === null || (typeof x !== 'object' && typeof x !== 'function') ? x : cv(out.${n}, x, keep);`,
    )
    .join('\n');
  const make = new Function('cv', `return function (out, v, keep) { let x;\n${body}\n};`) as (
    cv: typeof copyValue,
  ) => Copier;
  const copy = make(copyValue);
  cache.set(proto, copy);
  return copy;
}
