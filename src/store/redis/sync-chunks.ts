/** Entries of one sync script call: all in one cluster slot, at most about `maxKeys` keys and `maxAdmits` runs. */
export interface Chunk {
  indexes: number[];
}

/**
 * A user key's identity within one chunkEntries call: entries naming one key carry the same object
 * (RedisStore: its cached NamedKey), so a duplicate is found by a mark on it instead of a Map of
 * every key, which was most of chunkEntries' time and garbage. The fields are chunkEntries' scratch,
 * written and read within one synchronous call.
 */
export interface KeyMark {
  /** The call that saw this key last (a stamp no earlier call used). */
  mark: number;
  /** The index of its latest entry in that call. */
  last: number;
}

let stamps = 0;

/**
 * Splits a sync's entries into script calls. In a cluster, a script's keys must share a slot, so
 * entries are first grouped by slot (`slots` null: one server, one group in request order). A chunk
 * closes at `maxKeys` keys or once it holds `maxAdmits` pushed runs (SyncEntry.admits: what the wire
 * and sync.lua's work follow; a run's count costs nothing more). Entries naming the same key
 * always share a chunk: sync.lua decides which entries are replays before it writes anything, and a
 * later call would take the earlier call's seq record for a replay. `ids`: each entry's KeyMark, one
 * object per key (null: keys are told apart by their strings, in a Map).
 */
export function chunkEntries(
  entries: readonly { key: string; admits: readonly number[] }[],
  ids: readonly KeyMark[] | null,
  slots: readonly number[] | null,
  maxKeys: number,
  maxAdmits: number,
): Chunk[] {
  // The first entry of each key in request order; later entries naming the same key are chained
  // after it (`next`, made at the first repeat): no array or map per key, which were most of a
  // sync's garbage.
  const firsts: number[] = [];
  let next: Int32Array | null = null;
  if (ids !== null) {
    const stamp = ++stamps;
    for (let i = 0; i < entries.length; i++) {
      const id = ids[i];
      if (id.mark === stamp) {
        if (next === null) next = new Int32Array(entries.length).fill(-1);
        next[id.last] = i;
      } else {
        id.mark = stamp;
        firsts.push(i);
      }
      id.last = i;
    }
  } else {
    const lastOf = new Map<string, number>();
    for (let i = 0; i < entries.length; i++) {
      const key = entries[i].key;
      const last = lastOf.get(key);
      if (last !== undefined) {
        if (next === null) next = new Int32Array(entries.length).fill(-1);
        next[last] = i;
      } else firsts.push(i);
      lastOf.set(key, i);
    }
  }
  const chunks: Chunk[] = [];
  if (slots === null) cut(entries, firsts, next, maxKeys, maxAdmits, chunks);
  else {
    const bySlot = new Map<number, number[]>();
    for (const i of firsts) {
      const s = slots[i];
      let g = bySlot.get(s);
      if (g === undefined) bySlot.set(s, (g = []));
      g.push(i);
    }
    for (const g of bySlot.values()) cut(entries, g, next, maxKeys, maxAdmits, chunks);
  }
  return chunks;
}

/** Cuts one slot's keys (their first entries, in order; `next` chains the rest) into chunks. */
function cut(
  entries: readonly { admits: readonly number[] }[],
  firsts: number[],
  next: Int32Array | null,
  maxKeys: number,
  maxAdmits: number,
  chunks: Chunk[],
): void {
  if (next === null) {
    // no key repeats: a chunk is a run of `firsts`, copied out at its size
    let from = 0;
    let admits = 0;
    for (let f = 0; f < firsts.length; f++) {
      if (f > from && (f - from >= maxKeys || admits >= maxAdmits)) {
        chunks.push({ indexes: firsts.slice(from, f) });
        from = f;
        admits = 0;
      }
      admits += entries[firsts[f]].admits.length;
    }
    if (firsts.length > from) chunks.push({ indexes: firsts.slice(from) });
    return;
  }
  let cur: number[] = [];
  let admits = 0;
  for (let f = 0; f < firsts.length; f++) {
    const first = firsts[f];
    if (cur.length > 0 && (cur.length >= maxKeys || admits >= maxAdmits)) {
      chunks.push({ indexes: cur });
      cur = [];
      admits = 0;
    }
    for (let i = first; i !== -1; i = next[i]) {
      cur.push(i);
      admits += entries[i].admits.length;
    }
  }
  if (cur.length > 0) chunks.push({ indexes: cur });
}
