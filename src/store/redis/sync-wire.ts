// The sync's wire format, both ways: a sync.lua call packed as little-endian doubles (encode), and
// its reply's head read in place (decode). They change together with sync.lua's header comment.
import { NO_EXPIRIES } from '../../window/time-log.js';
import type { SyncEntry, SyncReply, SyncRequest } from '../contract.js';
import type { NamedKey } from './key-name-cache.js';
import { respCallHead } from './resp-wire.js';
import type { LuaScript, ScriptCall } from './script.js';
import type { Chunk } from './sync-chunks.js';

/** The head of every call of one sync: its arguments before the batch, and their RESP (see encodeSyncCall). */
export interface SyncHead {
  args: string[];
  resp: Buffer;
}

/**
 * One sync.lua call; the batch is one binary argument of little-endian doubles (see sync.lua's
 * header): per key flags, ask, the number of runs, the admits, the earliest and latest admit time,
 * then each run as (time, count). A key's admits go
 * as runs of one instant, as the entry carries them (SyncEntry.counts): a busy key admits many per
 * millisecond, and a request of any cost is one run. A string per number was most of
 * the gateway's CPU per key-sync (making, encoding and collecting them) and cost Redis an object
 * and a Lua string each. The call is built as the bytes the client writes (ScriptCall.wire): the
 * key names' RESP copied from the cache, the head's encoded once per sync, the batch packed in
 * place; the batch argument is a view of it. Not for a cluster call of a few keys (`prebuilt`
 * false: per-key hash tags cut a sync by slot into calls of a key or two), carried several to a
 * script call (sendPipelined), which the client encodes; only the batch is packed.
 */
export function encodeSyncCall(
  script: LuaScript,
  /** Exact mode: a key is named by its log and its meta hash (compact: the meta hash alone). */
  paired: boolean,
  c: Chunk,
  entries: SyncEntry[],
  names: NamedKey[],
  head: SyncHead,
  prebuilt: boolean,
): ScriptCall {
  const ix = c.indexes;
  const keys = new Array<string>((paired ? 2 : 1) * ix.length);
  let size = 0;
  let keyBytes = 0;
  for (let x = 0; x < ix.length; x++) {
    const i = ix[x];
    size += 6 + 2 * runCount(entries[i].admits);
    keyBytes += names[i].resp.length;
  }
  const start = prebuilt ? respCallHead(script.sha, keys.length, head.args.length + 1) : '';
  const batchHead = prebuilt ? `$${8 * size}\r\n` : '';
  const wire = Buffer.allocUnsafe(
    prebuilt ? start.length + keyBytes + head.resp.length + batchHead.length + 8 * size + 2 : 8 * size,
  );
  let w = prebuilt ? wire.write(start, 0, 'latin1') : 0;
  let k = 0;
  for (let x = 0; x < ix.length; x++) {
    const i = ix[x];
    const n = names[i];
    if (paired) keys[k++] = n.names.log;
    keys[k++] = n.names.meta;
    if (prebuilt) {
      wire.set(n.resp, w);
      w += n.resp.length;
    }
  }
  if (prebuilt) {
    wire.set(head.resp, w);
    w += head.resp.length;
    w += wire.write(batchHead, w, 'latin1');
  }
  const batch = w;
  // doubles written through a DataView: Buffer's writeDoubleLE checks and copies byte by byte per call
  const d = new DataView(wire.buffer, wire.byteOffset, wire.length);
  for (let x = 0; x < ix.length; x++) {
    const i = ix[x];
    const e = entries[i];
    const a = e.admits;
    const ac = e.counts;
    d.setFloat64(w, (e.read ? 1 : 0) + (e.release ? 2 : 0), true);
    d.setFloat64(w + 8, e.ask, true);
    // the number of runs goes at w + 16, once they are written
    const runsAt = w + 16;
    // the admits, the earliest and the latest (sync.lua skips the runs when they share a bucket and
    // all still count)
    let lo = 0;
    let hi = 0;
    let total = 0;
    for (let j = 0; j < a.length; j++) {
      if (j === 0 || a[j] < lo) lo = a[j];
      if (j === 0 || a[j] > hi) hi = a[j];
      total += ac === undefined ? 1 : ac[j];
    }
    d.setFloat64(w + 24, total, true);
    d.setFloat64(w + 32, lo, true);
    d.setFloat64(w + 40, hi, true);
    w += 48;
    // the entry's runs, neighbours at one instant joined (an entry may repeat an instant)
    let runs = 0;
    for (let j = 0; j < a.length; ) {
      const t = a[j];
      let n = ac === undefined ? 1 : ac[j];
      let k = j + 1;
      for (; k < a.length && a[k] === t; k++) n += ac === undefined ? 1 : ac[k];
      d.setFloat64(w, t, true);
      d.setFloat64(w + 8, n, true);
      w += 16;
      runs++;
      j = k;
    }
    d.setFloat64(runsAt, runs, true);
  }
  const args = [...head.args, wire.subarray(batch, w)];
  if (!prebuilt) return { script, keys, args };
  wire.write('\r\n', w, 'latin1');
  return { script, keys, args, wire };
}

/** Runs of equal instants in an entry's ascending admit times (SyncEntry.admits: runs already, or single admits). */
function runCount(a: readonly number[]): number {
  let runs = 0;
  for (let j = 0; j < a.length; j++) if (j === 0 || a[j] !== a[j - 1]) runs++;
  return runs;
}

/**
 * Unpacks one sync.lua reply into the replies of its entries; returns the store's now for them. The
 * reply's head is one Buffer of little-endian doubles (now, then per key count, granted, lapse and its
 * number of expiry pairs, and for an entry with `release` its oldest expiry and free slots, for one
 * with `read` alone that lists no pair its oldest expiry, then for one with `read` alone and a count
 * at the limit or over the two instants of belowLimitAt, then for one with `read` alone, a count of
 * L − 2 or more and admits it does not list the two of pastHorizonAt), read in place; the pairs follow as (expiry
 * as text, admits).
 */
export function decodeSyncChunk(
  r: (Buffer | number)[],
  indexes: number[],
  entries: SyncEntry[],
  req: SyncRequest,
  out: SyncReply[],
): number {
  const head = r[0] as Buffer;
  // read through a DataView: Buffer's readDoubleLE checks and copies byte by byte per call
  const d = new DataView(head.buffer, head.byteOffset, head.length);
  // at least: a read listing no expiry adds one (its oldest expiry), known once its pairs are read
  let doubles = 1 + 4 * indexes.length;
  for (let x = 0; x < indexes.length; x++) if (entries[indexes[x]].release) doubles += 2;
  const bad = () => new Error(`sync.lua replied ${head.length} head bytes for ${indexes.length} keys`);
  if (head.length < 8 * doubles) throw bad();
  const now = d.getFloat64(0, true);
  const horizon = now + req.horizonMs;
  const limit = req.policy.limit;
  let h = 8;
  let at = 1;
  for (let x = 0; x < indexes.length; x++) {
    const i = indexes[x];
    const e = entries[i];
    // + 0: a -0 reads as 0, as the integer replies these were
    const count = d.getFloat64(h, true) + 0;
    const granted = d.getFloat64(h + 8, true) + 0;
    const lapse = d.getFloat64(h + 16, true);
    const pairs = d.getFloat64(h + 24, true);
    h += 32;
    // as runs (SyncReply.expiryCounts): a pair stands for any number of admits at one expiry; most
    // replies list none, and share one empty list (never written: SyncReply's readers only read it)
    let expiries = NO_EXPIRIES;
    let expiryCounts: number[] | undefined;
    if (pairs > 0) {
      expiries = new Array<number>(pairs);
      for (let p = 0; p < pairs; p++, at += 2) {
        expiries[p] = textNumber(r[at] as Buffer);
        const n = r[at + 1] as number;
        if (n !== 1 && expiryCounts === undefined) expiryCounts = new Array<number>(pairs).fill(1);
        if (expiryCounts !== undefined) expiryCounts[p] = n;
      }
    }
    // each reply made whole in one literal of its fields (in SyncReply's order), not grown field by
    // field: a field added later moved it to a new shape and a second allocation
    const base = e.read ? horizon : now;
    let reply: SyncReply;
    if (e.release) {
      reply = {
        count,
        expiries,
        expiryCounts,
        horizon: base,
        granted,
        grantExpiresAt: lapse,
        oldestExpiry: d.getFloat64(h, true),
        free: d.getFloat64(h + 8, true) + 0,
      };
      h += 16;
    } else if (e.read) {
      if (pairs === 0) {
        if (head.length < 8 * ++doubles) throw bad();
        reply = {
          count,
          expiries,
          expiryCounts,
          horizon: base,
          granted,
          grantExpiresAt: lapse,
          oldestExpiry: d.getFloat64(h, true),
        };
        h += 8;
      } else reply = { count, expiries, expiryCounts, horizon: base, granted, grantExpiresAt: lapse };
      // at the limit or over: when the count falls below it and one under (SyncReply.belowLimitAt)
      if (count >= limit) {
        doubles += 2;
        if (head.length < 8 * doubles) throw bad();
        reply.belowLimitAt = [d.getFloat64(h, true), d.getFloat64(h + 8, true)];
        h += 16;
      }
      // L − 2 or more, with admits past those listed: the two oldest of them (pastHorizonAt)
      if (count + 2 >= limit && count > listedAdmits(pairs, expiryCounts)) {
        doubles += 2;
        if (head.length < 8 * doubles) throw bad();
        reply.pastHorizonAt = [d.getFloat64(h, true), d.getFloat64(h + 8, true)];
        h += 16;
      }
    } else reply = { count, expiries, expiryCounts, horizon: base, granted, grantExpiresAt: lapse };
    out[i] = reply;
  }
  if (head.length !== 8 * doubles) throw bad();
  return now;
}

/** Admits a reply lists: its pairs, each of its count (one each without counts). */
function listedAdmits(pairs: number, counts: number[] | undefined): number {
  if (counts === undefined) return pairs;
  let m = 0;
  for (let p = 0; p < pairs; p++) m += counts[p];
  return m;
}

/** A number Lua wrote as text (num() in common.lua): plain digits read in place, anything else by Number(). */
function textNumber(b: Buffer): number {
  const n = b.length;
  if (n === 0 || n > 15) return Number(b.toString('latin1'));
  let v = 0;
  for (let j = 0; j < n; j++) {
    const d = b[j] - 48;
    if (d < 0 || d > 9) return Number(b.toString('latin1'));
    v = v * 10 + d;
  }
  return v;
}
