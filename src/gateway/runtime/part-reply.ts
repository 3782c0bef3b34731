import { applyReply } from '../../designs/key-steps.js';
import type { SyncReply } from '../../store/contract.js';
import { Slicer } from '../../util/slicer.js';
import type { KeyTable } from './key-table.js';
import type { Part } from './sync-parts.js';

/**
 * An answered part's replies, applied at decision time `now`, in slices: each limiter takes its reply
 * (with the lapse margin on grants, `margin`) and each outage record learns its admits landed; what
 * holds nothing after it is dropped, and the key cap may drop confirmed keys again.
 */
export async function applyPartReply(
  part: Part,
  replies: SyncReply[],
  now: number,
  table: KeyTable,
  margin: (r: SyncReply) => SyncReply,
): Promise<void> {
  const entries = part.req.entries;
  const slicer = new Slicer();
  for (let i = 0; i < entries.length; i++) {
    if (slicer.due()) await slicer.pause();
    const lim = part.owners[i];
    const key = entries[i].key;
    if (lim !== null && applyReply(lim, margin(replies[i]), now)) table.dropIdle(key, lim);
    const fb = part.fallbacks[i];
    if (fb !== null) {
      fb.confirm();
      table.dropIdleOutage(key, fb, now);
    }
  }
  table.syncAnswered();
}
