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

/**
 * How user keys are tagged: `'per-key'`, each key its own hash tag (8 hex digits of its SHA-256), or
 * a number N, every key one of N group tags, so that one cluster slot holds many of a sync's keys and
 * one script call carries them (decision 0011).
 */
export type KeyGroups = number | 'per-key';

/** Most groups: a group's tag is searched for (groupTag), and the search takes about N tries. */
export const MAX_KEY_GROUPS = 1024;

/** Redis Cluster's hash slots. */
const SLOTS = 16384;

/**
 * The group of a user key among `n`: the first 32 bits of the SHA-256 of its UTF-16 code units (its
 * per-key tag, read as a big-endian unsigned number), mod n. Part of the key-name format: the same
 * key is in the same group in every process and version; changing it (or N) renames every key.
 */
export function keyGroup(key: string, n: number): number {
  return groupOfDigest(createHash('sha256').update(key, 'utf16le').digest('hex'), n);
}

function groupOfDigest(digestHex: string, n: number): number {
  return Number.parseInt(digestHex.slice(0, 8), 16) % n;
}

const groupTags = new Map<number, string[]>();
const TAG_TRIES = 1_000_000;

/**
 * The hash tag of group `g` of `n`: `<g>.<j>` for the least j ≥ 0 whose slot (CRC16 of the tag, mod
 * 16384) lies in [floor(g·16384/n), floor((g+1)·16384/n)). The groups' slots are spread evenly over
 * the slot space, in order, so a master serving a share of the slots in contiguous ranges (as
 * `redis-cli --cluster create` and `reshard` assign them) serves that share of the groups, to within
 * a group per range. Part of the key-name format, like keyGroup. Found once per group and process
 * (about n CRC16s of a short string); remembered.
 */
export function groupTag(g: number, n: number): string {
  let tags = groupTags.get(n);
  if (tags === undefined) groupTags.set(n, (tags = new Array<string>(n)));
  let tag = tags[g];
  if (tag === undefined) {
    const lo = Math.floor((g * SLOTS) / n);
    const hi = Math.floor(((g + 1) * SLOTS) / n);
    // each try lands in the range with odds (hi - lo) / 16384 ≥ 1/1024: found within a few thousand
    for (let j = 0; j < TAG_TRIES && tag === undefined; j++) {
      const t = `${g}.${j}`;
      const s = asciiSlot(t);
      if (s >= lo && s < hi) tag = t;
    }
    if (tag === undefined) throw new Error(`no tag of group ${g} of ${n} in ${TAG_TRIES} tries`);
    tags[g] = tag;
  }
  return tag;
}

/** CRC16-XMODEM's table (the CRC Redis Cluster hashes keys with). */
const CRC16 = (() => {
  const t = new Uint16Array(256);
  for (let i = 0; i < 256; i++) {
    let c = i << 8;
    for (let b = 0; b < 8; b++) c = c & 0x8000 ? ((c << 1) ^ 0x1021) & 0xffff : (c << 1) & 0xffff;
    t[i] = c;
  }
  return t;
})();

/** The cluster slot of an ASCII string without braces: CRC16 mod 16384, as Redis computes it. */
function asciiSlot(s: string): number {
  let crc = 0;
  for (let i = 0; i < s.length; i++)
    crc = ((crc << 8) & 0xffff) ^ CRC16[((crc >> 8) ^ s.charCodeAt(i)) & 0xff];
  return crc & (SLOTS - 1);
}

/** Checks a KeyGroups option. */
export function requireKeyGroups(v: unknown): KeyGroups {
  if (v === 'per-key') return v;
  if (typeof v !== 'number' || !Number.isInteger(v) || v < 1 || v > MAX_KEY_GROUPS) {
    throw new ConfigError(
      'keyGroups',
      `must be "per-key" or an integer from 1 to ${MAX_KEY_GROUPS}, got ${typeof v === 'number' ? v : JSON.stringify(v)}`,
    );
  }
  return v;
}

const LONE_SURROGATE = /\p{Surrogate}/u;

/**
 * Names are `<prefix>{<tag>}<kind>[<policy>]:<key>` or, for hashed keys,
 * `<prefix>{<tag>}<kind>[<policy>]#<sha256 hex>`, e.g. `fl:{1a2b3c4d}l[free=10/60000s]:user-42`.
 * The tag is derived here from SHA-256 over the key's UTF-16 code units, so braces in a user key can
 * never choose the slot (Redis hashes only the first `{...}`, which is ours: the prefix has no
 * braces). With `groups` 'per-key' it is the digest's first 8 hex digits; with a number N it is the
 * tag of the key's group (keyGroup, groupTag), e.g. `fl:{17.40}l[free=10/60000s]:user-42`: many
 * keys share a slot, and a cluster sync carries them in one script call (decision 0011). The user
 * key stays in the name, so keys of one group never share a record. The `:`/`#` after the policy keeps verbatim and hashed names apart, and the kind
 * letter comes before the user's bytes, so no key's log name is another key's meta name.
 *
 * `<policy>` is policyTag(policy): the same key string under two policies is two sets of records
 * (issue 20). It has no `]` (a policy name is a POLICY_NAME), so the bracket ends it unambiguously.
 * It sits after the hash tag, not in it: a user key's records of every policy share one slot, so a
 * request checked against several policies of one key (10/s and 1000/h) could be one atomic script,
 * and a user key's slot does not depend on configuration. The cost is that a hot key's policies all
 * load one node; a key has a handful of policies at most.
 */
export function keyNames(
  prefix: string,
  key: string,
  logKind: 'l' | 'b',
  policy: Policy,
  groups: KeyGroups = 'per-key',
): KeyNames {
  if (typeof key !== 'string' || key.length === 0) {
    throw new KeyError(`key must be a non-empty string, got ${typeof key === 'string' ? '""' : typeof key}`);
  }
  const digest = createHash('sha256').update(key, 'utf16le').digest('hex');
  const tag = groups === 'per-key' ? digest.slice(0, 8) : groupTag(groupOfDigest(digest, groups), groups);
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
