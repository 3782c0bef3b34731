import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import calculateSlot from 'cluster-key-slot';
import { type Cluster, Command, type Pipeline as IoPipeline, type Redis } from 'ioredis';
import type { Slicer } from '../../util/slicer.js';

export type RedisClient = Redis | Cluster;

/**
 * One Lua script: its source and SHA-1, computed once. Runs with EVALSHA and, when the server's
 * script cache does not have it (after a restart, a failover or SCRIPT FLUSH), resends with EVAL,
 * which also caches it again. A script whose reply holds binary strings (`buffers`) is run with the
 * Buffer variants (EVALSHA as ioredis's evalshaBuffer): its strings come back as Buffers, never
 * decoded as UTF-8.
 */
export class LuaScript {
  readonly sha: string;

  constructor(
    readonly name: string,
    readonly source: string,
    readonly buffers = false,
  ) {
    this.sha = createHash('sha1').update(source).digest('hex');
  }

  async run(client: RedisClient, keys: string[], args: (string | Buffer)[]): Promise<unknown> {
    try {
      if (this.buffers) return await client.callBuffer('evalsha', this.sha, keys.length, ...keys, ...args);
      return await client.evalsha(this.sha, keys.length, ...keys, ...args);
    } catch (err) {
      if (!isNoScript(err)) throw err;
      if (this.buffers) return client.callBuffer('eval', this.source, keys.length, ...keys, ...args);
      return client.eval(this.source, keys.length, ...keys, ...args);
    }
  }
}

export interface ScriptCall {
  script: LuaScript;
  /** All in one cluster slot. */
  keys: string[];
  args: (string | Buffer)[];
  /**
   * The call as the client would write it, prebuilt by the caller: EVALSHA, the SHA-1, the key count,
   * `keys` and `args` as one RESP array (see respCall). Written as is where the call goes alone and
   * the client adds no key prefix; `keys` and `args` still route it and serve resends and mixed calls.
   */
  wire?: Buffer;
}

/**
 * A call's head as RESP: the array header of an EVALSHA with `keys` keys and `args` arguments, the
 * command, the SHA-1 and the key count. The keys and arguments follow as bulk strings.
 */
export function respCallHead(sha: string, keys: number, args: number): string {
  const n = String(keys);
  return `*${3 + keys + args}\r\n$7\r\nevalsha\r\n$${sha.length}\r\n${sha}\r\n$${n.length}\r\n${n}\r\n`;
}

/** Strings as RESP bulk strings, one after another. */
export function respBulks(args: string[]): Buffer {
  let s = '';
  for (const a of args) s += `$${Buffer.byteLength(a, 'utf8')}\r\n${a}\r\n`;
  return Buffer.from(s, 'utf8');
}

/**
 * An EVALSHA whose bytes were prebuilt (ScriptCall.wire): the client writes them as they are instead
 * of encoding every argument (a string per key name was a fifth of the gateway's CPU per key-sync).
 * Its arguments are the call's own, for the cluster client to route it by its keys.
 */
class WireCommand extends Command {
  private readonly wire: Buffer;

  constructor(c: ScriptCall, wire: Buffer) {
    // the arguments are set after: the constructor would copy them (flat) and check each for
    // encoding, which the prebuilt bytes make moot (a tenth of the remaining CPU per key-sync)
    super('evalsha', [], { replyEncoding: c.script.buffers ? null : 'utf8' });
    this.args = [c.script.sha, String(c.keys.length), ...c.keys, ...c.args];
    this.wire = wire;
  }

  override toWritable(_socket: object): Buffer {
    return this.wire;
  }
}

/** Whether the client prefixes key names (ioredis keyPrefix): a prebuilt call would lack the prefix. */
function prefixesKeys(client: RedisClient): boolean {
  return Boolean((client.options as { keyPrefix?: string }).keyPrefix);
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
 * Most key names (two per user key) and arguments one cluster call carries when it carries several
 * calls (see composeScript): about one sync chunk (chunkKeys 100), so no call holds Redis longer
 * than a chunk did.
 */
const MIXED_KEYS = 200;
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
 * serves their slot, as the cluster client last saw it). In a cluster, calls of one node are carried
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
      sameHead(first.args, c.args)
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

/** EVALSHA arguments of a mixed call (see composeScript): the first call's keys declared, every call in ARGV. */
function mixedCommand(calls: ScriptCall[], u: Unit): EvalShaArgs {
  const first = calls[u.calls[0]];
  const out: (string | Buffer)[] = [...first.keys, MIXED, String(u.calls.length)];
  for (const i of u.calls) {
    const c = calls[i];
    out.push(String(c.keys.length), String(c.args.length));
    for (const k of c.keys) out.push(k);
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

/**
 * The composed script's first line. Redis 7 reads flags from it (a script with it needs Redis 7.0+):
 * a call may touch keys of several slots, all served by the node it runs on. Only a call carrying
 * several calls of one node (see MIXED) does; every other call declares keys of one slot as before.
 */
const SHEBANG = '#!lua flags=allow-cross-slot-keys';

/** ARGV[1] of a call carrying several calls of one script (see the dispatcher in composeScript). */
const MIXED = '*calls';

/**
 * A script made of the shared prelude, the window module of the mode and the operation. The
 * operation runs as a function, so one call may carry several calls of the script (keys of several
 * slots of one cluster node, sendPipelined): the prelude then runs once (one TIME, one set of
 * helpers), the operation once per carried call. Such a call declares the keys of its first carried
 * call (one slot: the client routes by it, Redis checks it) and passes the rest in ARGV: MIXED, the
 * count of calls, then per call its key count, argument count, keys and arguments. Before running
 * anything it checks that every carried call's keys are served here (EXISTS, which fails on a key
 * of a slot served elsewhere or mid-migration and not here), so it runs whole or not at all
 * (NONLOCAL: the client then sends the calls one by one). Carried calls share ARGV[1..6] (common.lua's
 * head): the prelude reads them once. An operation that returns an error ends the call with it.
 * `keysPaired` false: the operation takes one name per user key, its meta hash (compact mode's sync).
 */
export function composeScript(
  op: string,
  windowModule: string,
  buffers = false,
  keysPaired = true,
): LuaScript {
  const source = [
    SHEBANG,
    'local function fleetlimitScript(KEYS, ARGV, fleetlimitCalls)',
    // whether KEYS names each user key by its log and its meta hash, or by its meta hash alone
    // (compact mode's sync: window-buckets.lua)
    `local KEYS_PAIRED = ${keysPaired}`,
    luaSource('common.lua'),
    luaSource(windowModule),
    'local function fleetlimitOp(KEYS, ARGV)',
    luaSource(op),
    'end',
    'if fleetlimitCalls == nil then',
    '  return fleetlimitOp(KEYS, ARGV)',
    'end',
    'local replies = {}',
    'for j = 1, #fleetlimitCalls do',
    '  local r = fleetlimitOp(fleetlimitCalls[j][1], fleetlimitCalls[j][2])',
    "  if type(r) == 'table' and r.err ~= nil then",
    '    return r',
    '  end',
    '  if r == nil then',
    '    r = false',
    '  end',
    '  replies[j] = r',
    'end',
    'return replies',
    'end',
    `if ARGV[1] ~= '${MIXED}' then`,
    '  return fleetlimitScript(KEYS, ARGV, nil)',
    'end',
    'local calls, all, at = {}, {}, 3',
    'for j = 1, tonumber(ARGV[2]) do',
    '  local nk, na = tonumber(ARGV[at]), tonumber(ARGV[at + 1])',
    '  at = at + 2',
    '  local keys, args = {}, {}',
    '  for i = 1, nk do',
    '    keys[i] = ARGV[at]',
    '    all[#all + 1] = ARGV[at]',
    '    at = at + 1',
    '  end',
    '  for i = 1, na do',
    '    args[i] = ARGV[at]',
    '    at = at + 1',
    '  end',
    '  calls[j] = { keys, args }',
    '  if j > 1 and nk > 0 then',
    "    local r = redis.pcall('EXISTS', unpack(keys))",
    "    if type(r) == 'table' and r.err ~= nil then",
    "      return redis.error_reply('NONLOCAL ' .. r.err)",
    '    end',
    '  end',
    'end',
    'return fleetlimitScript(all, calls[1][2], calls)',
  ].join('\n');
  return new LuaScript(`${op} (${windowModule})`, source, buffers);
}
