// A reset of every key of a policy on Redis (resetAll, docs/decisions/0015-reset-all.md): which keys
// are the policy's (a SCAN pattern over its meta hashes, each name then read strictly), and where a
// scan goes on (a cursor naming the master and its SCAN cursor). The resets themselves are reset.lua's.
import type { Cluster, Redis } from 'ioredis';
import type { RedisClient } from './script.js';

/** Glob characters of Redis MATCH, each escaped with a backslash where a name holds it literally. */
function globEscape(s: string): string {
  return s.replace(/[\\*?[\]]/g, (c) => `\\${c}`);
}

/**
 * The MATCH pattern of every meta hash name of a policy (`<prefix>{<tag>}m[<policyTag>]…`, see
 * keyNames), with the client's own key prefix (ioredis `keyPrefix`, which SCAN does not add) ahead of
 * it. It may match more (a verbatim user key holding `}m[`): each name is read again by logOfMeta.
 */
export function metaPattern(clientPrefix: string, prefix: string, tag: string): string {
  return `${globEscape(clientPrefix + prefix)}{*}m\\[${globEscape(tag)}\\]*`;
}

/**
 * The log name of the key whose meta hash `name` is (without the client's prefix), if `name` is one
 * of the policy's meta hashes: `<prefix>{<tag without braces>}m[<policyTag>]` then `:` or `#`.
 * Null for any other name the pattern matched.
 */
export function logOfMeta(name: string, prefix: string, tag: string, logKind: 'l' | 'b'): string | null {
  if (!name.startsWith(`${prefix}{`)) return null;
  const close = name.indexOf('}', prefix.length + 1);
  if (close < 0 || name.lastIndexOf('{', close) !== prefix.length) return null;
  const kind = `m[${tag}]`;
  if (!name.startsWith(kind, close + 1)) return null;
  const sep = name[close + 1 + kind.length];
  if (sep !== ':' && sep !== '#') return null;
  return `${name.slice(0, close + 1)}${logKind}${name.slice(close + 2)}`;
}

/**
 * The servers a scan walks, in an order that does not change while the cluster's masters do not:
 * the client itself on one server, the masters by address in a cluster (a replica holds the same
 * keys). A failover between two chunks may move the scan to another order: a key may then be missed
 * or visited twice (a repeat removes nothing more); the caller may scan again.
 */
export function scanServers(client: RedisClient): Redis[] {
  if ((client as { isCluster?: boolean }).isCluster !== true) return [client as Redis];
  const masters = (client as Cluster).nodes('master');
  const addr = (r: Redis) => `${r.options.host}:${r.options.port}`;
  return masters.sort((a, b) => (addr(a) < addr(b) ? -1 : addr(a) > addr(b) ? 1 : 0));
}

/** A scan's place: the server's index in scanServers and its SCAN cursor ('' is the start). */
export function readCursor(cursor: string): { server: number; scan: string } {
  if (cursor === '') return { server: 0, scan: '0' };
  const m = /^(\d+):(\d+)$/.exec(cursor);
  if (m === null) throw new RangeError(`resetScan: not a cursor of this store: ${JSON.stringify(cursor)}`);
  return { server: Number(m[1]), scan: m[2] };
}

/** The cursor after a SCAN of server `server` answered `next` ('0': that server is through); null at the end. */
export function nextCursor(server: number, next: string, servers: number): string | null {
  if (next !== '0') return `${server}:${next}`;
  return server + 1 < servers ? `${server + 1}:0` : null;
}
