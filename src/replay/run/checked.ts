/**
 * A checked fleet's decisions of a chunk (ReplayFleet.checked: adaptive-early at K > 1, whose early
 * syncs reach across keys): key-grouped, as the other grouped fleets decide, each key's state saved
 * before its first request; if a decision wanted an early sync (none is sent then), the chunk is
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
  let spoiled = false;
  for (let j = 0; j < c.keyCount && !spoiled; j++) {
    const st = keys[j]!;
    const key = st.key;
    f.checkpoint(key);
    for (let s = st.chunkHead; s !== -1; ) {
      const at = s * stride;
      verdicts[s] = f.decideAt(key, data[at + 2] >> 2, data[at], data[at + off]) ? 1 : 0;
      if (f.spoiled) {
        spoiled = true;
        break;
      }
      s = data[at + 3];
    }
  }
  if (!spoiled) f.endCheck();
  else {
    f.rollback();
    const byArrival = c.keysInOrder();
    for (let s = 0; s < c.size; s++) {
      const at = s * stride;
      verdicts[s] = f.decideAt(byArrival[s]!.key, data[at + 2] >> 2, data[at], data[at + off]) ? 1 : 0;
    }
  }
  for (let s = 0; s < c.size; s++) data[s * stride + off] = verdicts[s];
}
