// A script call written as prebuilt RESP bytes: the head and bulk strings a caller packs once, and the
// ioredis Command that writes them as they are instead of encoding every argument.
import { Command } from 'ioredis';
import type { RedisClient, ScriptCall } from './script.js';

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
export class WireCommand extends Command {
  private readonly wire: Buffer;

  constructor(c: ScriptCall, wire: Buffer) {
    // the arguments are set after: the constructor would copy them (flat) and check each for
    // encoding, which the prebuilt bytes make moot (a tenth of the remaining CPU per key-sync)
    super('evalsha', [], { replyEncoding: c.script.buffers ? null : 'utf8' });
    // made at its size: spreading the keys (two per user key) into a literal grew it in steps
    const k = c.keys;
    const a = c.args;
    const args = new Array<string | Buffer>(2 + k.length + a.length);
    args[0] = c.script.sha;
    args[1] = String(k.length);
    for (let i = 0; i < k.length; i++) args[2 + i] = k[i];
    for (let i = 0; i < a.length; i++) args[2 + k.length + i] = a[i];
    this.args = args;
    this.wire = wire;
  }

  // toWritable and the `args` set after super() are ioredis internals (Command's, not its documented
  // API): checked on ioredis 6.0.x, so package.json pins ioredis to ~6.0.0. A new minor may change
  // how a Command writes itself; check this class against it (test/store/redis, the sync's wire tests)
  // before widening the range.
  override toWritable(_socket: object): Buffer {
    return this.wire;
  }
}

/** Whether the client prefixes key names (ioredis keyPrefix): a prebuilt call would lack the prefix. */
export function prefixesKeys(client: RedisClient): boolean {
  return Boolean((client.options as { keyPrefix?: string }).keyPrefix);
}
