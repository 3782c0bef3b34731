/** Entries of one sync script call: all in one cluster slot, at most `maxKeys` keys and about `maxAdmits` admits. */
export interface Chunk {
  indexes: number[];
}

/**
 * Splits a sync's entries into script calls. In a cluster, a script's keys must share a slot, so
 * entries are first grouped by slot (`slots` null: one server, one group in request order). A chunk
 * closes at `maxKeys` keys or once it holds `maxAdmits` pushed admits; an entry is never split.
 */
export function chunkEntries(
  entries: readonly { admits: readonly number[] }[],
  slots: readonly number[] | null,
  maxKeys: number,
  maxAdmits: number,
): Chunk[] {
  const groups = new Map<number, number[]>();
  for (let i = 0; i < entries.length; i++) {
    const s = slots === null ? 0 : slots[i];
    let g = groups.get(s);
    if (g === undefined) groups.set(s, (g = []));
    g.push(i);
  }
  const chunks: Chunk[] = [];
  for (const g of groups.values()) {
    let cur: number[] = [];
    let admits = 0;
    for (const i of g) {
      if (cur.length > 0 && (cur.length >= maxKeys || admits >= maxAdmits)) {
        chunks.push({ indexes: cur });
        cur = [];
        admits = 0;
      }
      cur.push(i);
      admits += entries[i].admits.length;
    }
    if (cur.length > 0) chunks.push({ indexes: cur });
  }
  return chunks;
}
