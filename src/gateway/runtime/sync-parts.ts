import type { KeyLimiter } from '../../designs/key-limiter.js';
import type { SyncEntry, SyncRequest } from '../../store/contract.js';
import type { Fallback } from './fallback.js';

/*
 * How a sync goes out (SyncLoop sends it; this module cuts and joins its parts):
 *
 * Syncs in parts. A sync goes out as several requests (parts) with one seq, each small enough to be
 * answered well within storeTimeoutMs (sized from the store's recent speed, see partKeys), two in
 * flight at a time, entries that push admits first. A sync that outgrew its timeout used to fail for
 * good: resent whole, it never fit again, and the gateway stayed on its fail mode (issue 17, item 7).
 * The store's liveness (lastGoodAt, failing) follows the answered parts.
 *
 * Retried parts. The store applies a key's pushes at most once per (gateway, seq), checked per key.
 * When a part fails — a timeout or an error — the runtime cannot tell whether the store applied it (a
 * reply can be lost after the write). So the part is kept and resent first at the next tick with the
 * same seq and entries (halved if it timed out): if the first attempt landed, the store treats the
 * resend as a replay and pushes nothing again; if it did not, the resend applies it. Merging the
 * failed pushes into a new batch instead would be wrong either way (a new seq counts them twice if
 * they landed, the old seq drops the new ones). Its keys stay out of newer syncs until it is answered
 * (`unresolved`), so a key never sees a newer seq before the resend of an older one. The limiters are
 * not told the sync failed (no `syncFailed`): their pushes stay in flight, still counted as their
 * own, until the resend is answered. Admits made meanwhile go out in a later sync, with a new seq.
 */

/**
 * One sync request (a part of a sync) and what answers go where. Kept when it fails, so the resend
 * carries the same seq and entries (split, if it timed out: per-key seqs make any split the same).
 */
export interface Part {
  req: SyncRequest;
  owners: (KeyLimiter | null)[];
  fallbacks: (Fallback | null)[];
  /** Per entry, the limiter admits it pushes (fallback admits are counted by their Fallback). */
  own: number[];
  attempts: number;
  /** The last attempt timed out (its resend goes in smaller parts). */
  timedOut: boolean;
  /** Decision time when building its sync began. */
  builtFrom: number;
}

/** A sync's entries and where their answers go, built side by side. */
export class Entries {
  readonly entries: SyncEntry[] = [];
  readonly owners: (KeyLimiter | null)[] = [];
  readonly fallbacks: (Fallback | null)[] = [];
  readonly own: number[] = [];
  add(e: SyncEntry, owner: KeyLimiter | null, fb: Fallback | null, own: number): void {
    this.entries.push(e);
    this.owners.push(owner);
    this.fallbacks.push(fb);
    this.own.push(own);
  }
  append(o: Entries): void {
    for (let i = 0; i < o.entries.length; i++) this.add(o.entries[i], o.owners[i], o.fallbacks[i], o.own[i]);
  }
}

/** Appends part `q` (same seq) to part `p`: one request again. */
export function joinPart(p: Part, q: Part): void {
  p.req = { ...p.req, entries: p.req.entries.concat(q.req.entries) };
  p.owners = p.owners.concat(q.owners);
  p.fallbacks = p.fallbacks.concat(q.fallbacks);
  p.own = p.own.concat(q.own);
  p.attempts = Math.max(p.attempts, q.attempts);
}

/**
 * Splits a part into parts of at most `max` keys with the same seq, in order. Entries naming one key
 * stay in one part (the store decides a key's replay once per request); an empty part stays one part
 * (the heartbeat).
 */
export function splitPart(p: Part, max: number): Part[] {
  const n = p.req.entries.length;
  if (n <= max) return [p];
  const out: Part[] = [];
  const home = new Map<string, Part>();
  let cur: Part | null = null;
  for (let i = 0; i < n; i++) {
    const e = p.req.entries[i];
    let to = home.get(e.key);
    if (to === undefined) {
      if (cur === null || cur.req.entries.length >= max) {
        cur = { ...p, req: { ...p.req, entries: [] }, owners: [], fallbacks: [], own: [] };
        out.push(cur);
      }
      to = cur;
      home.set(e.key, to);
    }
    to.req.entries.push(e);
    to.owners.push(p.owners[i]);
    to.fallbacks.push(p.fallbacks[i]);
    to.own.push(p.own[i]);
  }
  return out;
}

/**
 * Unanswered parts for their resend: no larger than `size` keys (parts are now), a timed-out one
 * halved (once: the halves have not timed out at their size), and neighbours of one seq joined again
 * up to that size, so a long outage does not leave the table in ever smaller pieces.
 */
export function resendParts(parts: Part[], size: number): Part[] {
  const out: Part[] = [];
  const halves = new Set<Part>();
  for (const p of parts) {
    const n = p.req.entries.length;
    if (p.timedOut) {
      for (const q of splitPart(p, Math.min(size, Math.ceil(n / 2)))) {
        q.timedOut = false;
        halves.add(q);
        out.push(q);
      }
      continue;
    }
    for (const q of n <= size ? [p] : splitPart(p, size)) {
      const last = out.length > 0 ? out[out.length - 1] : null;
      const joins =
        last !== null &&
        !halves.has(last) &&
        last.req.seq === q.req.seq &&
        last.req.entries.length + q.req.entries.length <= size;
      if (joins) joinPart(last, q);
      else out.push(q);
    }
  }
  return out;
}
