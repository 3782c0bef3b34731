import { type KeyLimiter, readsOnRequest } from '../../designs/key-limiter.js';
import { DROP, syncEntryOf } from '../../designs/key-steps.js';
import type { SyncEntry } from '../../store/contract.js';
import { Slicer } from '../../util/slicer.js';
import { mergeRuns, NO_RUNS, runTotal } from '../../window/runs.js';
import type { Fallback } from './fallback.js';
import type { KeyTable } from './key-table.js';
import type { FarKey, ReadTurns } from './read-turns.js';
import { Entries } from './sync-parts.js';

/** What a batch is built for. */
export interface BatchHow {
  /** Decision time the batch is built at. */
  now: number;
  /** A stopping gateway's last sync: it asks for nothing, and no read waits. */
  final: boolean;
  /** The design's syncs with nothing to push only read ('lazy'): a far key's read may wait its turn. */
  lazy: boolean;
  /** L: a key with at most half of it left (as this gateway sees it) is near its limit. */
  limit: number;
  /**
   * Keys of unanswered parts, left out: a newer seq must not reach them before their resend (and keys
   * whose reset waits: ResetQueue). Asked as the walk goes, so a key queued meanwhile is left out too.
   */
  unresolved: { readonly size: number; has(key: string): boolean };
  /** Keys per part now (PartSizer): the reads that wait their turn fill the round up to a few parts. */
  partKeys: number;
}

/**
 * A sync's entries, in the order they go out, from every held key (KeyTable.walk) and every outage
 * record of a key without a limiter; keys with nothing left are dropped on the way. Talks to no store.
 *
 * Order (issue 19: a key flood must not starve honest keys): entries that push admits first, keys
 * near their limit (at most half of L left) before the others; then those that release or ask; then
 * reads of keys near their limit. A key with room to spare and nothing to push (a flood's key, or any
 * quiet key; designs whose syncs are 'lazy') is all that may wait: a round takes at most what fits in
 * a few parts of them, in turns (ReadTurns), so a round's length stays near the store timeout however
 * many keys are held, and a flood only makes the flooded keys' views staler. Such a key's entry would
 * carry nothing, so leaving it out changes nothing but the age of its view. A design whose reads
 * follow requests (Design.readsFollowRequests) reads such a key only after a request decided for it
 * here since its last read: the others are left out, and dropped once idle.
 */
export async function buildBatch(table: KeyTable, how: BatchHow, turns: ReadTurns): Promise<Entries> {
  const { now, final, unresolved } = how;
  const pushing = new Entries();
  const pushingFar = new Entries();
  const rest = new Entries();
  const reads = new Entries();
  // a key "near" its limit is a busy one, whose decisions a stale view may turn; a flood's one-admit
  // key is far from it
  const half = how.limit / 2;
  const add = (e: SyncEntry, owner: KeyLimiter | null, fb: Fallback | null, own: number): void => {
    // the last sync asks for nothing: a stopping gateway hands every slot back
    const entry = final && e.ask > 0 ? { ...e, ask: 0 } : e;
    if (e.admits.length > 0)
      (owner !== null && owner.remaining(now) <= half ? pushing : pushingFar).add(entry, owner, fb, own);
    else if (e.read && !e.release && e.ask === 0 && fb === null) reads.add(entry, owner, fb, own);
    else rest.add(entry, owner, fb, own);
  };
  // a far key's entry is taken only if its turn comes (ReadTurns), so a waiting key costs the walk no entry
  const deferrable = !final && how.lazy;
  const far: FarKey[] = [];
  const slicer = new Slicer();
  const taken = new Set<Fallback>();
  // asked at each key: a reset queued while the walk pauses between slices leaves its key out (ResetQueue)
  const skip = (key: string) => unresolved.size > 0 && unresolved.has(key);
  await table.walk((key, lim) => {
    if (skip(key)) return;
    if (deferrable && lim.unsyncedAdmits() === 0 && lim.remaining(now) > half && !table.hasOutage(key)) {
      // a quiet key is read only after a request here since its last read (ReadsOnRequest, issue 35)
      if (readsOnRequest(lim) && !lim.readDue(now)) {
        if (lim.isIdle(now)) table.dropIdle(key, lim);
        return;
      }
      far.push({ key, lim });
      return;
    }
    const out = syncEntryOf(lim, key, now);
    const own = out === DROP ? null : out;
    const fb = table.outage(key) ?? null;
    const extra = fb === null ? NO_RUNS : fb.take(now);
    if (fb !== null) taken.add(fb);
    if (own === null && extra.t.length === 0) {
      if (out === DROP) table.dropIdle(key, lim);
      return;
    }
    let e: SyncEntry;
    if (own === null) e = { key, admits: extra.t, counts: extra.n, read: false, release: false, ask: 0 };
    else if (extra.t.length === 0) e = own;
    else {
      // a copy: the limiter's in-flight list must not learn about admits it did not make
      const all = mergeRuns(own.admits, own.counts, extra.t, extra.n);
      e = { ...own, admits: all.times, counts: all.counts };
    }
    add(e, own === null ? null : lim, fb, own === null ? 0 : runTotal(own.admits, own.counts));
  }, slicer);
  // outage records of keys without a limiter; one taken above is in this batch already, even if
  // its key has left the table since
  await table.walkOutages((key, fb) => {
    if (table.has(key) || taken.has(fb) || skip(key)) return;
    const extra = fb.take(now);
    if (extra.t.length > 0)
      add({ key, admits: extra.t, counts: extra.n, read: false, release: false, ask: 0 }, null, fb, 0);
    else table.dropIdleOutage(key, fb, now);
  }, slicer);
  pushing.append(pushingFar);
  pushing.append(rest);
  pushing.append(reads);
  await turns.take(
    unresolved.size > 0 ? far.filter((f) => !skip(f.key)) : far,
    turns.budget(pushing.entries.length, how.partKeys),
    now,
    table,
    pushing,
  );
  return pushing;
}
