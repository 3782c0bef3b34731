import { ConfigError, requirePositiveFinite, requirePositiveInteger } from '../../config.js';
import { type KeyGroups, requireKeyGroups, requirePrefix } from './key-names.js';

export interface RedisStoreOptions {
  /** Prepended to every Redis key name; no braces. @default 'fl:' */
  prefix?: string;
  /**
   * Whose clock the window runs on. 'redis': the scripts read Redis TIME, so gateways with skewed
   * clocks cannot stretch or shrink the window (the `now` passed in is ignored). 'caller': the
   * `now` passed in (virtual time in tests). Key expiry always runs on Redis's real clock, so with
   * 'caller' a clock running slower than real time needs a larger `expiryMarginMs`.
   * @default 'redis'
   */
  clock?: 'redis' | 'caller';
  /**
   * 'exact': every admit in a sorted set, as runs of admits at one instant, one member per touch's runs. 'buckets': per-key counts in `buckets` sub-windows of W,
   * memory independent of the limit; counts may exceed the exact ones by at most the admits of one
   * sub-window (errs towards rejecting). @default 'exact'
   */
  mode?: 'exact' | 'buckets';
  /** Sub-windows per window in 'buckets' mode. @default 60 */
  buckets?: number;
  /**
   * Most keys in one sync script call; more keys go in further calls of the same pipeline, so no
   * one call holds Redis for long. Measured with
   *   FLEETLIMIT_BENCH=1 npx vitest run test/store/redis/chunk-size.live.test.ts
   * (Redis 7.0, keys holding 20 admits, 1 pushed admit + a read per key, on the 2-core dev box at
   * load ~6): ~18-20 µs of Redis time per key whatever the chunk, so 100 keys ≈ 1.9 ms per call,
   * 200 ≈ 3.6 ms, 1,000 ≈ 22 ms; with 5 pushed admits per key, 100 keys ≈ 2.3-4.7 ms. Past ~100
   * keys a bigger call saves nothing per key, and 100 keeps one call at a couple of ms.
   * @default 100
   */
  chunkKeys?: number;
  /** Most pushed runs (admits at one instant) in one sync script call (a key is never split). @default 1000 */
  chunkAdmits?: number;
  /**
   * How user keys are spread over Redis Cluster slots: a number N puts every key in one of N groups,
   * each its own hash tag, so a sync's keys of one group go in one script call ('per-key': a hash tag
   * per key, one or two keys per call, as before). Part of the key names: every gateway of a store
   * must use the same value, and changing it starts every key's count afresh (decision 0011).
   * @default 256 on a Cluster client, 'per-key' on one server (key names as before)
   */
  keyGroups?: KeyGroups;
  /**
   * Milliseconds a key lives past the last instant anything in it counts. With `clock: 'redis'` a key
   * lives up to twice this: its expiry is set one margin later than needed, so that a busy key's
   * syncs move it once per margin rather than on every touch. @default 5000
   */
  expiryMarginMs?: number;
}

export interface ResolvedRedisStoreOptions {
  prefix: string;
  clock: 'redis' | 'caller';
  mode: 'exact' | 'buckets';
  buckets: number;
  chunkKeys: number;
  chunkAdmits: number;
  keyGroups: KeyGroups;
  expiryMarginMs: number;
}

/** keyGroups on a Cluster client unless set (see RedisStoreOptions.keyGroups, decision 0011). */
export const DEFAULT_CLUSTER_KEY_GROUPS = 256;

/** `cluster`: whether the store's client is a Redis Cluster client (keyGroups' default follows it). */
export function resolveRedisStoreOptions(
  o: RedisStoreOptions = {},
  cluster = false,
): ResolvedRedisStoreOptions {
  if (o === null || typeof o !== 'object') throw new ConfigError('options', 'must be an object');
  const clock = o.clock ?? 'redis';
  if (clock !== 'redis' && clock !== 'caller') {
    throw new ConfigError('clock', `must be "redis" or "caller", got ${JSON.stringify(clock)}`);
  }
  const mode = o.mode ?? 'exact';
  if (mode !== 'exact' && mode !== 'buckets') {
    throw new ConfigError('mode', `must be "exact" or "buckets", got ${JSON.stringify(mode)}`);
  }
  return {
    prefix: requirePrefix(o.prefix ?? 'fl:'),
    clock,
    mode,
    buckets: requirePositiveInteger('buckets', o.buckets ?? 60),
    chunkKeys: requirePositiveInteger('chunkKeys', o.chunkKeys ?? 100),
    chunkAdmits: requirePositiveInteger('chunkAdmits', o.chunkAdmits ?? 1000),
    keyGroups: requireKeyGroups(o.keyGroups ?? (cluster ? DEFAULT_CLUSTER_KEY_GROUPS : 'per-key')),
    expiryMarginMs: requirePositiveFinite('expiryMarginMs', o.expiryMarginMs ?? 5000),
  };
}
