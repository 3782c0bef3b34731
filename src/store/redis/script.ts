// One Lua script of the store: composed from its .lua files (prelude, window module, operation, in
// dispatch.lua's frame that lets one call carry several), and run with EVALSHA, falling back to EVAL.
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
    /**
     * Calls carried by one call (see MIXED) run as one: they must share every argument but the last
     * (dispatch.lua's merge; sync.lua, whose calls of one sync share its head).
     */
    readonly merges = false,
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

/** ARGV[1] of a call carrying several calls of one script (see dispatch.lua). */
export const MIXED = '*calls';

/**
 * A script made of the shared prelude, the window module of the mode (after window-count.lua, what
 * both modes keep in the meta record) and the operation, in the frame of dispatch.lua, which lets
 * one call carry several calls of the script (its comment says how; the client side is
 * sendPipelined). Carried calls share ARGV[1..6] (common.lua's head): the prelude
 * reads them once. `keysPaired` false: the operation takes one name per user key, its meta hash
 * (compact mode's sync). `merges`: the operation runs once for all carried calls (LuaScript.merges).
 */
export function composeScript(
  op: string,
  windowModule: string,
  buffers = false,
  keysPaired = true,
  merges = false,
): LuaScript {
  const parts: Record<string, string> = {
    keysPaired: String(keysPaired),
    merge: String(merges),
    common: luaSource('common.lua'),
    windowCount: luaSource('window-count.lua'),
    window: luaSource(windowModule),
    op: luaSource(op),
    MIXED,
  };
  // one pass over the frame: text put in is not searched for markers again
  const body = dispatchFrame().replace(/\{\{(\w+)\}\}/g, (_, name: string) => {
    const part = parts[name];
    if (part === undefined) throw new Error(`fleetlimit: dispatch.lua names an unknown part {{${name}}}`);
    return part;
  });
  return new LuaScript(`${op} (${windowModule})`, `${SHEBANG}\n${body}`, buffers, merges);
}

/** dispatch.lua without its comment (down to the first blank line) and its last line break. */
function dispatchFrame(): string {
  const file = luaSource('dispatch.lua');
  return file.slice(file.indexOf('\n\n') + 2).replace(/\n$/, '');
}
