// One Lua script of the store: composed from its .lua files (prelude, window module, operation and
// the dispatcher that lets one call carry several), and run with EVALSHA, falling back to EVAL.
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Cluster, Redis } from 'ioredis';

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

function isNoScript(err: unknown): boolean {
  return err instanceof Error && err.message.startsWith('NOSCRIPT');
}

export function isCluster(client: RedisClient): client is Cluster {
  return (client as Cluster).isCluster === true;
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
export const MIXED = '*calls';

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
