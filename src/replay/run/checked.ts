/**
 * A checked fleet's decisions of a chunk (ReplayFleet.checked: adaptive-early at K > 1, whose early
 * syncs reach across keys): key-grouped, as the other grouped fleets decide, each key's state saved
 * before its first request, but for a key whose state shows none of its requests can want an early
 * sync (ReplayFleet.quiet: decided after the others, so an undo never reaches it); if a decision wanted an early sync (none is sent then), the chunk is
 * undone and decided again in time order, which sends it. A chunk with none is decided exactly as
 * time order decides it: a key's decisions depend on other keys' only through early syncs. Each
 * decision (1 admitted) is left in the fleet's number of the arrival (ArrivalChunk.data), where the
 * engine reads a time-ordered fleet's.
 */
import type { ArrivalChunk } from './chunk.js';
import { FIELDS } from './chunk.js';
import type { ReplayFleet } from './fleet.js';

/** Decides design i's requests of the chunk (fleet f), its number there the sync index (clockTo). */
export function decideChecked(c: ArrivalChunk, f: ReplayFleet, i: number): void {
  const { keys, data, stride, verdicts } = c;
  const off = FIELDS - 1 + i;
  f.beginCheck();
  // the keys that cannot spoil the chunk (ReplayFleet.quiet), decided last and unsaved: a chunk
  // undone is undone before any of them is touched
  const quiet = new Int32Array(c.keyCount);
  let nq = 0;
  // a key's requests' instants and gateways, in order
  const ts = new Float64Array(c.size);
  const gs = new Int32Array(c.size);
  // the chunk's first and last instants
  let from = Number.POSITIVE_INFINITY;
  let until = Number.NEGATIVE_INFINITY;
  for (let s = 0; s < c.size; s++) {
    const t = data[s * stride];
    if (t < from) from = t;
    if (t > until) until = t;
  }
  let spoiled = false;
  for (let j = 0; j < c.keyCount && !spoiled; j++) {
    const st = keys[j]!;
    const key = st.key;
    let n = 0;
    for (let s = st.chunkHead; s !== -1; s = data[s * stride + 3]) {
      ts[n] = data[s * stride];
      gs[n++] = data[s * stride + 2] >> 2;
    }
    if (f.quiet(key, ts, gs, n, from, until)) {
      quiet[nq++] = j;
      continue;
    }
    f.checkpoint(key);
    spoiled = decideKey(c, f, off, st.chunkHead, key);
  }
  if (!spoiled) {
    for (let q = 0; q < nq; q++) {
      const st = keys[quiet[q]]!;
      if (decideKey(c, f, off, st.chunkHead, st.key))
        throw new Error(`replay: key ${st.key}, found quiet, wanted an early sync in a checked chunk`);
    }
    f.endCheck();
  } else {
    f.rollback();
    const byArrival = c.keysInOrder();
    for (let s = 0; s < c.size; s++) {
      const at = s * stride;
      verdicts[s] = f.decideAt(byArrival[s]!.key, data[at + 2] >> 2, data[at], data[at + off]) ? 1 : 0;
    }
  }
  for (let s = 0; s < c.size; s++) data[s * stride + off] = verdicts[s];
}

/** The key's requests of the chunk from `head` on, in order; true: one spoiled the chunk (and the rest are left). */
function decideKey(c: ArrivalChunk, f: ReplayFleet, off: number, head: number, key: string): boolean {
  const { data, stride, verdicts } = c;
  for (let s = head; s !== -1; ) {
    const at = s * stride;
    verdicts[s] = f.decideAt(key, data[at + 2] >> 2, data[at], data[at + off]) ? 1 : 0;
    if (f.spoiled) return true;
    s = data[at + 3];
  }
  return false;
}
