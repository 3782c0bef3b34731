import { createHash } from 'node:crypto';
import { ConfigError, KeyError, type Policy } from '../../config.js';
import { policyTag } from '../policy-tag.js';

/**
 * Longest user key, in UTF-8 bytes, that appears verbatim in its Redis key names; longer keys (and
 * keys with lone UTF-16 surrogates, which UTF-8 cannot carry distinctly) are replaced by their
 * SHA-256. Verbatim names keep `redis-cli --scan` readable; the cap keeps names short.
 */
export const MAX_VERBATIM_KEY_BYTES = 200;

/**
 * The Redis key names that hold one user key's records under one policy; all of a user key's records,
 * under every policy, share one hash tag, so one cluster slot.
 */
export interface KeyNames {
  /**
   * The window log: a sorted set (exact mode). Compact mode keeps its buckets in the meta hash; this
   * names the bucket hash of versions before, which its scripts fold into the meta hash and delete.
   */
  log: string;
  /** Grants per gateway, last sync seq per gateway, the log's member counter. */
  meta: string;
  /** The hash tag, without braces: what Redis Cluster hashes to pick the slot. */
  tag: string;
}

const LONE_SURROGATE = /\p{Surrogate}/u;

/**
 * Names are `<prefix>{<tag>}<kind>[<policy>]:<key>` or, for hashed keys,
 * `<prefix>{<tag>}<kind>[<policy>]#<sha256 hex>`, e.g. `fl:{1a2b3c4d}l[free=10/60000s]:user-42`.
 * The tag is 8 hex digits of SHA-256 over the key's UTF-16 code units, derived here, so braces in a
 * user key can never choose the slot (Redis hashes only the first `{...}`, which is ours: the prefix
 * has no braces). The `:`/`#` after the policy keeps verbatim and hashed names apart, and the kind
 * letter comes before the user's bytes, so no key's log name is another key's meta name.
 *
 * `<policy>` is policyTag(policy): the same key string under two policies is two sets of records
 * (issue 20). It has no `]` (a policy name is a POLICY_NAME), so the bracket ends it unambiguously.
 * It sits after the hash tag, not in it: a user key's records of every policy share one slot, so a
 * request checked against several policies of one key (10/s and 1000/h) could be one atomic script,
 * and a user key's slot does not depend on configuration. The cost is that a hot key's policies all
 * load one node; a key has a handful of policies at most.
 */
export function keyNames(prefix: string, key: string, logKind: 'l' | 'b', policy: Policy): KeyNames {
  if (typeof key !== 'string' || key.length === 0) {
    throw new KeyError(`key must be a non-empty string, got ${typeof key === 'string' ? '""' : typeof key}`);
  }
  const digest = createHash('sha256').update(key, 'utf16le').digest('hex');
  const tag = digest.slice(0, 8);
  const verbatim = Buffer.byteLength(key, 'utf8') <= MAX_VERBATIM_KEY_BYTES && !LONE_SURROGATE.test(key);
  const head = `${prefix}{${tag}}`;
  const tail = `[${policyTag(policy)}]${verbatim ? `:${key}` : `#${digest}`}`;
  return { log: `${head}${logKind}${tail}`, meta: `${head}m${tail}`, tag };
}

/** Checks a key prefix: braces in it would choose the cluster slot, so they are refused. */
export function requirePrefix(prefix: unknown): string {
  if (typeof prefix !== 'string' || prefix.length > 64) {
    throw new ConfigError('prefix', `must be a string of at most 64 characters, got ${typeof prefix}`);
  }
  if (/[{}]/.test(prefix)) {
    throw new ConfigError(
      'prefix',
      `must not contain braces (they would choose the cluster slot): ${prefix}`,
    );
  }
  return prefix;
}
