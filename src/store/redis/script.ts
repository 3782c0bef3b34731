import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import calculateSlot from 'cluster-key-slot';
import type { Cluster, Redis } from 'ioredis';
import type { Slicer } from '../../util/slicer.js';

export type RedisClient = Redis | Cluster;

/**
 * One Lua script: its source and SHA-1, computed once. Runs with EVALSHA and, when the server's
 * script cache does not have it (after a restart, a failover or SCRIPT FLUSH), resends with EVAL,
 * which also caches it again.
 */
export class LuaScript {
  readonly sha: string;

  constructor(
    readonly name: string,
    readonly source: string,
  ) {
    this.sha = createHash('sha1').update(source).digest('hex');
  }

  async run(client: RedisClient, keys: string[], args: string[]): Promise<unknown> {
    try {
      return await client.evalsha(this.sha, keys.length, ...keys, ...args);
    } catch (err) {
      if (!isNoScript(err)) throw err;
      return client.eval(this.source, keys.length, ...keys, ...args);
    }
  }
}

export interface ScriptCall {
  script: LuaScript;
  /** All in one cluster slot. */
  keys: string[];
  args: string[];
}

function isNoScript(err: unknown): boolean {
  return err instanceof Error && err.message.startsWith('NOSCRIPT');
}

/** Errors after which a call did not run and is safe to resend on its own (the client then follows it). */
function isResendable(err: Error): boolean {
  return /^(NOSCRIPT|MOVED|ASK|TRYAGAIN|CLUSTERDOWN)\b/.test(err.message);
}

function isCluster(client: RedisClient): client is Cluster {
  return (client as Cluster).isCluster === true;
}

/**
 * Holds a store's request-path calls back while a sync is being prepared and written in slices, so
 * that every call lands at Redis in the order it was made, as when a sync was written in one go. A
 * caller checks `busy` and, if so, awaits `idle()` right before sending: the check and the send then
 * happen in the same turn, so nothing can start in between.
 */
export class WriteGate {
  private current: Promise<void> | null = null;

  get busy(): boolean {
    return this.current !== null;
  }

  async idle(): Promise<void> {
    while (this.current !== null) await this.current;
  }

  /** Runs `work` once nothing else holds the gate; the others wait for it. */
  async run<T>(work: () => Promise<T>): Promise<T> {
    while (this.current !== null) await this.current;
    let done = () => {};
    this.current = new Promise<void>((r) => {
      done = r;
    });
    try {
      return await work();
    } finally {
      this.current = null;
      done();
    }
  }
}

/** Keys per pipeline part: one part is written in one go (a couple of ms of ioredis encoding). */
const PART_KEYS = 1000;

/**
 * Sends many script calls as one round trip: one pipeline per server (calls grouped by the node that
 * serves their slot, as the cluster client last saw it). Resolves once everything is written, with
 * the replies still to come. A call that comes back NOSCRIPT, or was redirected (MOVED/ASK, a slot
 * mid-migration), did not run: it is resent on its own, which EVALs it or follows the redirect.
 * Results come back in call order; the first other error rejects them.
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
  for (const idx of groupByNode(client, calls)) {
    // build every part first (building writes nothing), then write them in order
    const parts: Pipeline[] = [];
    let p = client.pipeline();
    let keys = 0;
    for (const i of idx) {
      const c = calls[i];
      if (keys >= PART_KEYS && slicer !== undefined) {
        parts.push(p);
        p = client.pipeline();
        keys = 0;
      }
      p.evalsha(c.script.sha, c.keys.length, ...c.keys, ...c.args);
      keys += c.keys.length / 2;
      if (slicer?.due(c.keys.length / 2)) await slicer.pause();
    }
    parts.push(p);
    const sent: ReturnType<Pipeline['exec']>[] = [];
    for (const part of parts) {
      sent.push(part.exec());
      if (slicer?.due(PART_KEYS)) await slicer.pause();
    }
    written.push(collect(client, calls, idx, sent, results));
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

/** One server's replies into `results`, resending the calls that did not run. */
async function collect(
  client: RedisClient,
  calls: ScriptCall[],
  idx: number[],
  sent: ReturnType<Pipeline['exec']>[],
  results: unknown[],
): Promise<void> {
  const answered = await Promise.allSettled(sent);
  const replies: [Error | null, unknown][] = [];
  for (const a of answered) {
    if (a.status === 'rejected') throw a.reason;
    replies.push(...(a.value ?? []));
  }
  const retry: Promise<void>[] = [];
  for (let j = 0; j < idx.length; j++) {
    const [err, value] = replies[j] ?? [new Error('pipeline returned no reply'), null];
    const i = idx[j];
    if (err === null) results[i] = value;
    else if (isResendable(err)) {
      const c = calls[i];
      retry.push(
        c.script.run(client, c.keys, c.args).then((v) => {
          results[i] = v;
        }),
      );
    } else {
      // let the other resends settle before throwing, so none rejects unobserved
      retry.push(Promise.reject(err));
    }
  }
  const settled = await Promise.allSettled(retry);
  for (const s of settled) if (s.status === 'rejected') throw s.reason;
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

/** The directory holding the .lua files: beside this module (copied into dist by the build), else in src. */
function luaDir(): string {
  const here = fileURLToPath(new URL('./lua/', import.meta.url));
  if (existsSync(here)) return here;
  const src = fileURLToPath(new URL('../../../src/store/redis/lua/', import.meta.url));
  if (existsSync(src)) return src;
  throw new Error(`fleetlimit: Lua scripts not found in ${here} or ${src}; rebuild with npm run build`);
}

const cache = new Map<string, string>();

/** Reads a .lua file once. */
export function luaSource(file: string): string {
  let s = cache.get(file);
  if (s === undefined) {
    s = readFileSync(`${luaDir()}${file}`, 'utf8');
    cache.set(file, s);
  }
  return s;
}

/** A script made of the shared prelude, the window module of the mode and the operation. */
export function composeScript(op: string, windowModule: string): LuaScript {
  const source = [luaSource('common.lua'), luaSource(windowModule), luaSource(op)].join('\n');
  return new LuaScript(`${op} (${windowModule})`, source);
}
