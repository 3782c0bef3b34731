/** Entries of one sync script call: all in one cluster slot, at most about `maxKeys` keys and `maxAdmits` runs. */
export interface Chunk {
  indexes: number[];
}

/**
 * Splits a sync's entries into script calls. In a cluster, a script's keys must share a slot, so
 * entries are first grouped by slot (`slots` null: one server, one group in request order). A chunk
 * closes at `maxKeys` keys or once it holds `maxAdmits` pushed runs (SyncEntry.admits: what the wire
 * and sync.lua's work follow; a run's count costs nothing more). Entries naming the same key
 * always share a chunk: sync.lua decides which entries are replays before it writes anything, and a
 * later call would take the earlier call's seq record for a replay.
 */
export function chunkEntries(
  entries: readonly { key: string; admits: readonly number[] }[],
  slots: readonly number[] | null,
  maxKeys: number,
  maxAdmits: number,
): Chunk[] {
  // Per slot, the first entry of each key in request order; later entries naming the same key are
  // chained after it (`next`): no array or map per key, which were most of a sync's garbage.
  const lastOf = new Map<string, number>();
  const next = new Int32Array(entries.length).fill(-1);
  const bySlot = new Map<number, number[]>();
  for (let i = 0; i < entries.length; i++) {
    const key = entries[i].key;
    const last = lastOf.get(key);
    if (last !== undefined) {
      next[last] = i;
      lastOf.set(key, i);
      continue;
    }
    lastOf.set(key, i);
    const s = slots === null ? 0 : slots[i];
    let g = bySlot.get(s);
    if (g === undefined) bySlot.set(s, (g = []));
    g.push(i);
  }
  const chunks: Chunk[] = [];
  for (const g of bySlot.values()) {
    let cur: number[] = [];
    let admits = 0;
    for (const first of g) {
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
  return chunks;
}
