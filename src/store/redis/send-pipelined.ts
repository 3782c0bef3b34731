// Many script calls in one round trip: grouped by the node serving them, carried several to a call in
// a cluster, written in slices, and the calls that did not run (NOSCRIPT, redirects) resent alone.
import calculateSlot from 'cluster-key-slot';
import type { Pipeline as IoPipeline, Redis } from 'ioredis';
import type { Slicer } from '../../util/slicer.js';
import { prefixesKeys, WireCommand } from './resp-wire.js';
import { isCluster, MIXED, type RedisClient, type ScriptCall } from './script.js';

/** Errors after which a call did not run and is safe to resend on its own (the client then follows it). */
function isResendable(err: Error): boolean {
  return /^(NOSCRIPT|MOVED|ASK|TRYAGAIN|CLUSTERDOWN)\b/.test(err.message);
}

/**
 * ioredis refused a cluster pipeline at exec, before writing any of it: the client's slot map changed
 * after the calls were grouped by node (a refresh while a sliced sync was built). Its calls did not
 * run; each is resent on its own, routed by the new map
 * (regression: test/regressions/cluster-slot-map-refreshed-mid-sync-fails-it.live.test.ts).
 */
function isRegrouped(err: unknown): boolean {
  return (
    err instanceof Error && err.message.startsWith('All keys in the pipeline should belong to the same slots')
  );
}

/** Keys per pipeline part: one part is written in one go (a couple of ms of ioredis encoding). */
const PART_KEYS = 1000;

/**
 * Most key names (two per user key) and arguments one cluster call carries when it carries several
 * calls (see composeScript): a call closes before the call that would take it past this, so with
 * a sync's key groups of ~39 keys (78 names) calls carry ~100 keys on average, as one server's
 * chunks (chunkKeys 100) do, and none more than 140.
 */
const MIXED_KEYS = 280;
const MIXED_ARGS = 2500;
/** ARGV[1..6]: the head common.lua reads; calls carried by one call must share it. */
const HEAD_ARGS = 6;

/**
 * Calls written as one script call: one call as itself, or several calls of one script and one
 * head, all served by one node, as one mixed call (composeScript). A cluster sync is cut by slot (a
 * script's declared keys share one), and 10,000 keys fall in ~7,500 slots: one call per slot would
 * make the per-call cost (command, script setup, prelude) the bulk of a sync's Redis time.
 */
interface Unit {
  /** Indexes into the calls, in order. */
  calls: number[];
  keys: number;
}

/**
 * Sends many script calls as one round trip: one pipeline per server (calls grouped by the node that
 * serves their slot, as the cluster client last saw it), or on one server, when every call is
 * prebuilt, the calls written corked (writeCorked). In a cluster, calls of one node are carried
 * several to a script call (Unit). Resolves once everything is written, with the replies still to
 * come. A call that comes back NOSCRIPT, or was redirected (MOVED/ASK, a slot mid-migration), did
 * not run: it is resent on its own, which EVALs it or follows the redirect; a mixed call refused so
 * (or NONLOCAL: one of its slots is not served here as a whole) ran none of its calls, and each is
 * resent on its own. Results come back in call order; the first other error rejects them.
 *
 * With a `slicer`, a large pipeline is built and written in parts of about PART_KEYS keys, with a
 * turn of the event loop between slices, so a sync of many keys never holds the loop for long; all
 * parts are written before any reply is awaited (still one round trip).
 */
export async function sendPipelined(
  client: RedisClient,
  calls: ScriptCall[],
  slicer?: Slicer,
): Promise<{ replies: Promise<unknown[]> }> {
  if (isCluster(client) && client.slots.length === 0) {
    // no slot map yet (still connecting): the client queues single commands and routes each itself
    return { replies: Promise.all(calls.map((c) => c.script.run(client, c.keys, c.args))) };
  }
  const results = new Array<unknown>(calls.length);
  const written: Promise<void>[] = [];
  const mix = isCluster(client);
  const prebuilt = !prefixesKeys(client);
  for (const idx of groupByNode(client, calls)) {
    if (!mix && prebuilt && client.status === 'ready' && idx.every((i) => calls[i].wire !== undefined)) {
      await writeCorked(client as Redis, calls, idx, results, slicer, written);
      continue;
    }
    const units = mix ? mixUnits(calls, idx) : idx.map((i) => ({ calls: [i], keys: calls[i].keys.length }));
    // build every part first (building writes nothing), then write them in order
    const parts: Pipeline[] = [];
    const sizes: number[] = [];
    let p = client.pipeline();
    let keys = 0;
    for (const u of units) {
      if (keys >= PART_KEYS && slicer !== undefined) {
        parts.push(p);
        sizes.push(p.length);
        p = client.pipeline();
        keys = 0;
      }
      const c = calls[u.calls[0]];
      if (u.calls.length === 1 && c.wire !== undefined && prebuilt) {
        // pipeline() is typed by its commands; it is an ioredis Pipeline, which queues a Command
        (p as unknown as IoPipeline).sendCommand(new WireCommand(c, c.wire));
      } else {
        const args: EvalShaArgs =
          u.calls.length === 1 ? [c.script.sha, c.keys.length, ...c.keys, ...c.args] : mixedCommand(calls, u);
        if (c.script.buffers) p.callBuffer('evalsha', ...args);
        else p.evalsha(...args);
      }
      keys += u.keys / 2;
      if (slicer?.due(u.keys / 2)) await slicer.pause();
    }
    parts.push(p);
    sizes.push(p.length);
    const sent: ReturnType<Pipeline['exec']>[] = [];
    for (const part of parts) {
      const x = part.exec();
      // collect awaits it after the pauses below: a refusal meanwhile is not unhandled
      x.catch(() => {});
      sent.push(x);
      if (slicer?.due(PART_KEYS)) await slicer.pause();
    }
    written.push(collect(client, calls, units, sent, sizes, results));
  }
  const replies = Promise.allSettled(written).then((settled) => {
    for (const s of settled) if (s.status === 'rejected') throw s.reason;
    return results;
  });
  // the caller may fail before awaiting: never an unhandled rejection
  replies.catch(() => {});
  return { replies };
}

type Pipeline = ReturnType<RedisClient['pipeline']>;

/**
 * One server's calls, all prebuilt (ScriptCall.wire), written to its socket as they are, corked: they
 * leave together, as a pipeline's would, without ioredis's Pipeline joining every command's bytes
 * into one Buffer first (a copy of the whole sync, about 200 bytes a key, allocated anew each time).
 * Parts of about PART_KEYS keys with a `slicer`, as sendPipelined's. Resolves once all is written;
 * the replies' collection (into `results`, resending as sendPipelined does) goes in `written`.
 */
async function writeCorked(
  client: Redis,
  calls: ScriptCall[],
  idx: number[],
  results: unknown[],
  slicer: Slicer | undefined,
  written: Promise<void>[],
): Promise<void> {
  const units: Unit[] = idx.map((i) => ({ calls: [i], keys: calls[i].keys.length }));
  const sent: ReturnType<Pipeline['exec']>[] = [];
  const sizes: number[] = [];
  let part: Promise<[Error | null, unknown]>[] = [];
  let keys = 0;
  // the socket at this part's start: a reconnect during a pause brings another
  let socket = client.stream;
  socket.cork();
  const close = () => {
    socket.uncork();
    sent.push(Promise.all(part));
    sizes.push(part.length);
  };
  for (const u of units) {
    if (keys >= PART_KEYS && slicer !== undefined) {
      close();
      part = [];
      keys = 0;
      if (slicer.due(PART_KEYS)) await slicer.pause();
      socket = client.stream;
      socket.cork();
    }
    const c = calls[u.calls[0]];
    const p = client.sendCommand(new WireCommand(c, c.wire as Buffer)) as Promise<unknown>;
    part.push(p.then(ok, failed));
    keys += u.keys / 2;
  }
  close();
  written.push(collect(client, calls, units, sent, sizes, results));
}

function ok(v: unknown): [null, unknown] {
  return [null, v];
}

function failed(e: Error): [Error, null] {
  return [e, null];
}

/** EVALSHA's arguments: the script's SHA-1, the number of keys, the keys, the arguments. */
type EvalShaArgs = [string, number, ...(string | Buffer)[]];

/**
 * One node's calls, in order, as units: consecutive calls of one script and head, up to MIXED_KEYS /
 * MIXED_ARGS; a prebuilt call (ScriptCall.wire) is a unit of its own.
 */
function mixUnits(calls: ScriptCall[], idx: number[]): Unit[] {
  const units: Unit[] = [];
  let cur: Unit | null = null;
  let args = 0;
  for (const i of idx) {
    const c = calls[i];
    const first = cur === null ? null : calls[cur.calls[0]];
    if (
      cur !== null &&
      first !== null &&
      // a prebuilt call goes alone, as written (RedisStore builds one only for a call of many keys)
      c.wire === undefined &&
      first.wire === undefined &&
      first.script === c.script &&
      cur.keys + c.keys.length <= MIXED_KEYS &&
      args + c.args.length + c.keys.length <= MIXED_ARGS &&
      (first.script.merges ? sameButLast(first.args, c.args) : sameHead(first.args, c.args))
    ) {
      cur.calls.push(i);
      cur.keys += c.keys.length;
      args += c.args.length + c.keys.length;
      continue;
    }
    cur = { calls: [i], keys: c.keys.length };
    args = c.args.length + c.keys.length;
    units.push(cur);
  }
  return units;
}

function sameHead(a: (string | Buffer)[], b: (string | Buffer)[]): boolean {
  if (a.length < HEAD_ARGS || b.length < HEAD_ARGS) return false;
  for (let i = 0; i < HEAD_ARGS; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** Calls of a merging script (LuaScript.merges) carried by one call share every argument but the last. */
function sameButLast(a: (string | Buffer)[], b: (string | Buffer)[]): boolean {
  if (a.length !== b.length || a.length === 0) return false;
  for (let i = 0; i < a.length - 1; i++) if (a[i] !== b[i]) return false;
  return true;
}

/**
 * EVALSHA arguments of a mixed call (see dispatch.lua): the first call's keys declared, every call in
 * ARGV but for those keys.
 */
function mixedCommand(calls: ScriptCall[], u: Unit): EvalShaArgs {
  const first = calls[u.calls[0]];
  const out: (string | Buffer)[] = [...first.keys, MIXED, String(u.calls.length)];
  for (const i of u.calls) {
    const c = calls[i];
    out.push(String(c.keys.length), String(c.args.length));
    if (i !== u.calls[0]) for (const k of c.keys) out.push(k);
    for (const a of c.args) out.push(a);
  }
  return [first.script.sha, first.keys.length, ...out];
}

/** One server's replies into `results`, resending the calls that did not run. */
async function collect(
  client: RedisClient,
  calls: ScriptCall[],
  units: Unit[],
  sent: ReturnType<Pipeline['exec']>[],
  sizes: number[],
  results: unknown[],
): Promise<void> {
  const answered = await Promise.allSettled(sent);
  const replies: [Error | null, unknown][] = [];
  for (let p = 0; p < answered.length; p++) {
    const a = answered[p];
    if (a.status === 'fulfilled') replies.push(...(a.value ?? []));
    else if (isRegrouped(a.reason)) for (let j = 0; j < sizes[p]; j++) replies.push([a.reason, null]);
    else throw a.reason;
  }
  const retry: Promise<void>[] = [];
  const resend = (i: number) => {
    const c = calls[i];
    retry.push(
      c.script.run(client, c.keys, c.args).then((v) => {
        results[i] = v;
      }),
    );
  };
  for (let j = 0; j < units.length; j++) {
    const [err, value] = replies[j] ?? [new Error('pipeline returned no reply'), null];
    const u = units[j];
    if (err === null) {
      if (u.calls.length === 1) results[u.calls[0]] = value;
      else for (let k = 0; k < u.calls.length; k++) results[u.calls[k]] = (value as unknown[])[k];
    } else if (isResendable(err) || isRegrouped(err) || (u.calls.length > 1 && isNonLocal(err))) {
      for (const i of u.calls) resend(i);
    } else {
      // let the other resends settle before throwing, so none rejects unobserved
      retry.push(Promise.reject(err));
    }
  }
  const settled = await Promise.allSettled(retry);
  for (const s of settled) if (s.status === 'rejected') throw s.reason;
}

/** A mixed call found a carried call's slot not served here as a whole, and ran nothing (composeScript). */
function isNonLocal(err: Error): boolean {
  return err.message.startsWith('NONLOCAL ');
}

function groupByNode(client: RedisClient, calls: ScriptCall[]): number[][] {
  if (!isCluster(client)) return [calls.map((_, i) => i)];
  const byNode = new Map<string, number[]>();
  for (let i = 0; i < calls.length; i++) {
    const slot = calculateSlot(calls[i].keys[0]);
    const node = client.slots[slot]?.join(';') ?? `?${slot}`;
    let g = byNode.get(node);
    if (g === undefined) byNode.set(node, (g = []));
    g.push(i);
  }
  return [...byNode.values()];
}
