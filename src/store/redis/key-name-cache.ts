import calculateSlot from 'cluster-key-slot';
import type { Policy } from '../../config.js';
import { policyTag } from '../policy-tag.js';
import { type KeyGroups, type KeyNames, keyNames } from './key-names.js';
import type { KeyMark } from './sync-chunks.js';

/**
 * A user key's names and the RESP encoding of those a sync call names it by: two bulk strings,
 * `$<bytes>\r\n<log>\r\n$<bytes>\r\n<meta>\r\n`, or in compact mode the meta hash's alone. A sync
 * call copies these bytes into its command instead of having the client encode them per key
 * (encodeSyncCall). One object per key while the cache holds it: a sync finds an entry repeating a
 * key by it (KeyMark, chunkEntries).
 */
export interface NamedKey extends KeyMark {
  names: KeyNames;
  resp: Buffer;
  /** The cluster slot of its names. */
  slot: number;
}

/**
 * A user key's Redis key names, remembered: deriving them takes a SHA-256 of the key, which was a
 * third of the gateway's CPU per key-sync (the hash, its buffers and their collection). Bounded by
 * `max` names in all; when full it starts over (a sync of more keys than that derives the rest
 * afresh, as before the cache), so its memory never depends on how many keys clients send.
 */
export class KeyNameCache {
  private readonly byPolicy = new Map<string, Map<string, NamedKey>>();
  private size = 0;
  /** The policy named last and its names: a sync names all its keys under one (one lookup fewer a key). */
  private lastTag = '';
  private lastNames: Map<string, NamedKey> | undefined;
  /** Bumped at every start-over: while it stands, a key's NamedKey is one object (see NamedKey). */
  generation = 0;

  constructor(
    private readonly prefix: string,
    private readonly logKind: 'l' | 'b',
    private readonly max: number,
    /** Whether a sync names a key by both names (exact mode) or its meta hash alone. */
    private readonly paired = true,
    private readonly groups: KeyGroups = 'per-key',
  ) {}

  /** The names of `key` under `policy`; `tag` is policyTag(policy), computed once by a caller naming many keys. */
  get(key: string, policy: Policy, tag = policyTag(policy)): KeyNames {
    return this.named(key, policy, tag).names;
  }

  /** The names of `key` under `policy` and their RESP encoding (see NamedKey). */
  named(key: string, policy: Policy, tag = policyTag(policy)): NamedKey {
    let names = tag === this.lastTag ? this.lastNames : this.byPolicy.get(tag);
    if (names === undefined) this.byPolicy.set(tag, (names = new Map()));
    this.lastTag = tag;
    this.lastNames = names;
    let k = names.get(key);
    if (k === undefined) {
      const n = keyNames(this.prefix, key, this.logKind, policy, this.groups);
      const resp = this.paired ? `${bulk(n.log)}${bulk(n.meta)}` : bulk(n.meta);
      k = { names: n, resp: Buffer.from(resp, 'utf8'), slot: calculateSlot(n.tag), mark: 0, last: -1 };
      if (this.size >= this.max) {
        this.generation++;
        this.byPolicy.clear();
        this.byPolicy.set(tag, (names = new Map()));
        this.lastNames = names;
        this.size = 0;
      }
      names.set(key, k);
      this.size++;
    }
    return k;
  }
}

/** A string as a RESP bulk string. */
function bulk(s: string): string {
  return `$${Buffer.byteLength(s, 'utf8')}\r\n${s}\r\n`;
}
