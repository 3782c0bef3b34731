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

  async run(client: RedisClient, keys: string[], args: (string | Buffer)[]): Promise<unknown> {
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
  args: (string | Buffer)[];
}

function isNoScript(err: unknown): boolean {
  return err instanceof Error && err.message.startsWith('NOSCRIPT');
}

/** Errors after which a call did not run and is safe to resend on its own (the client then follows it). */
function isResendable(err: Error): boolean {
  return /^(NOSCRIPT|MOVED|ASK|TRYAGAIN|CLUSTERDOWN)\b/.test(err.message);
}

/**
 * ioredis refused a cluster pipeline at exec, before writing any of it: the client's slot map changed
 * after the calls were grouped by node (a refresh while a sliced sync was built). Its calls did not
 * run; each is resent on its own, routed by the new map
 * (regression: test/regressions/cluster-slot-map-refreshed-mid-sync-fails-it.test.ts).
 */
function isRegrouped(err: unknown): boolean {
  return (
    err instanceof Error && err.message.startsWith('All keys in the pipeline should belong to the same slots')
  );
}

function isCluster(client: RedisClient): client is Cluster {
  return (client as Cluster).isCluster === true;
}

/**
 * Keeps a store's calls landing in the order they were made, resends included. A call that comes
 * back NOSCRIPT (or MOVED, ASK, TRYAGAIN, CLUSTERDOWN) did not run and is resent; a call made after
 * it, already on the wire or sent meanwhile, may run first (another client may have loaded the
 * script it uses, or its slot may be served elsewhere already). So a sync is exclusive: it is
 * written once every call made before it has settled, and a request-path call (logAdmit, ask,
 * void) made while a sync is pending is sent once that sync has settled, replies and resends and
 * all. Request-path calls run alongside one another: each is one atomic script that checks the
 * limit itself, so their relative order decides nothing a later call could undo. Without a pending
 * sync a request-path call is sent at once, in the caller's turn.
 */
export class CallOrder {
  /** Settles (never rejects) once the last sync made has settled. */
  private lastSync: Promise<void> = Promise.resolve();
  private syncPending = false;
  /** Request-path calls made since the last sync was made and not settled yet. */
  private calls = new Set<Promise<void>>();

  /** A request-path call: after every sync made before it, alongside other request-path calls. */
  request<T>(work: () => Promise<T>): Promise<T> {
    const p = this.syncPending ? this.lastSync.then(work) : work();
    const settled = p.then(
      () => {},
      () => {},
    );
    this.calls.add(settled);
    settled.then(() => this.calls.delete(settled));
    return p;
  }

  /**
   * A sync: `prepare` starts at once (it writes nothing), `send` runs once every call made before
   * this one has settled, and calls made after wait until what `send` returns has settled.
   */
  exclusive<P, T>(prepare: () => Promise<P>, send: (prepared: P) => Promise<T>): Promise<T> {
    const before = [this.lastSync, ...this.calls];
    this.calls = new Set();
    const prepared = prepare();
    const p = Promise.all(before).then(() => prepared.then(send));
    const settled = p.then(
      () => {},
      () => {},
    );
    this.lastSync = settled;
    this.syncPending = true;
    settled.then(() => {
      if (this.lastSync === settled) this.syncPending = false;
    });
    return p;
  }
}

/**
 * Loads a client's scripts (SCRIPT LOAD) before their first use and again whenever a connection
 * becomes ready (a reconnect, a restarted server), on every master of a cluster (a node added, or
 * made master by a failover, when the slot map is refreshed), so that EVALSHA finds them: NOSCRIPT
 * is left to a SCRIPT FLUSH while connected, and the resend (EVAL) covers it. A load is queued on a
 * connection before any call sent after it, so a store's first calls find their scripts. One loader
 * per client, shared by its stores.
 */
class ScriptLoader {
  private readonly scripts = new Map<string, string>();
  private readonly watched = new WeakSet<object>();
  /** Cluster nodes that were sent every script since they last became ready. */
  private readonly loaded = new WeakSet<object>();

  constructor(private readonly client: RedisClient) {
    if (isCluster(client)) {
      client.on('+node', (node: Redis) => this.watch(node));
      client.on('refresh', () => this.loadMasters(false));
      for (const node of client.nodes('all')) this.watch(node);
    } else this.watch(client);
  }

  add(scripts: LuaScript[]): void {
    const fresh: string[] = [];
    for (const s of scripts) {
      if (this.scripts.has(s.sha)) continue;
      this.scripts.set(s.sha, s.source);
      fresh.push(s.source);
    }
    if (fresh.length === 0) return;
    if (isCluster(this.client)) this.loadMasters(true, fresh);
    else if (this.client.status !== 'end') load(this.client, fresh);
  }

  private loadMasters(all: boolean, sources = [...this.scripts.values()]): void {
    if (!isCluster(this.client) || sources.length === 0) return;
    for (const node of this.client.nodes('master')) {
      if (node.status === 'end' || (!all && this.loaded.has(node))) continue;
      this.loaded.add(node);
      load(node, sources);
    }
  }

  private watch(node: Redis): void {
    if (this.watched.has(node)) return;
    this.watched.add(node);
    node.on('ready', () => {
      this.loaded.add(node);
      load(node, [...this.scripts.values()]);
    });
    node.on('close', () => this.loaded.delete(node));
  }
}

/** Fire and forget: a load that fails leaves the resend (EVAL) to cover a NOSCRIPT. */
function load(node: Redis, sources: string[]): void {
  if (sources.length === 0) return;
  for (const source of sources) node.script('LOAD', source).catch(() => {});
}

const loaders = new WeakMap<object, ScriptLoader>();

/** Loads `scripts` on `client` now and after every reconnect (see ScriptLoader). */
export function keepLoaded(client: RedisClient, scripts: LuaScript[]): void {
  let l = loaders.get(client);
  if (l === undefined) loaders.set(client, (l = new ScriptLoader(client)));
  l.add(scripts);
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
    const sizes: number[] = [];
    let p = client.pipeline();
    let keys = 0;
    for (const i of idx) {
      const c = calls[i];
      if (keys >= PART_KEYS && slicer !== undefined) {
        parts.push(p);
        sizes.push(p.length);
        p = client.pipeline();
        keys = 0;
      }
      p.evalsha(c.script.sha, c.keys.length, ...c.keys, ...c.args);
      keys += c.keys.length / 2;
      if (slicer?.due(c.keys.length / 2)) await slicer.pause();
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
    written.push(collect(client, calls, idx, sent, sizes, results));
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
  for (let j = 0; j < idx.length; j++) {
    const [err, value] = replies[j] ?? [new Error('pipeline returned no reply'), null];
    const i = idx[j];
    if (err === null) results[i] = value;
    else if (isResendable(err) || isRegrouped(err)) {
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
