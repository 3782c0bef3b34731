import {
  ConfigChecks,
  ConfigError,
  MAX_TIMER_MS,
  MIN_STORE_TIMEOUT_MS,
  requireKnownFields,
  requirePositiveFinite,
  requirePositiveInteger,
} from '../../config.js';
import { type AnyStore, asAsyncStore } from '../../store/async-adapter.js';
import type { AsyncStore, Store } from '../../store/contract.js';
import { type GatewayOptions, type ResolvedOptions, resolveGatewayOptions } from '../options.js';

/**
 * How the gateway decides while the store is unreachable or slower than `storeTimeoutMs`.
 *
 * - `local` (default): the shared-counter family and central-log fall back to a split of the limit
 *   over the K gateways: each admits while its own degraded admits in the window stay below L/K. Across
 *   the fleet that is at most K·ceil(L/K) per window during the outage, plus whatever was admitted
 *   before it still counts. The lease designs keep their promise instead: a gateway spends only slots
 *   the store granted it, until they lapse (in practice until its next sync attempt, which hands them
 *   back), so they never exceed L even during an outage; a request that would ask the store is rejected.
 * - `closed`: reject every request.
 * - `open`: admit every request (no bound at all).
 *
 * `split` never talks to the store on the request path and its syncs carry nothing, so it is never degraded.
 * Every decision made this way carries `degraded: true`.
 */
export type FailMode = 'local' | 'closed' | 'open';
const FAIL_MODES: readonly FailMode[] = ['local', 'closed', 'open'];

/** The gateway options a configuration file sets: all but what a program adds (store, clock, random). */
export type GatewayFileOptions = Omit<AsyncGatewayOptions, 'store' | 'clock' | 'random'>;

export interface AsyncGatewayOptions extends GatewayOptions {
  /** The shared store: Redis (RedisStore), or the in-memory MemoryStore for one process, tests and demos. */
  store: AsyncStore | Store;
  /** @default 'local' */
  failMode?: FailMode;
  /**
   * A store call slower than this, in ms, counts as failed: syncs and request-path calls alike. At
   * least 1 (MIN_STORE_TIMEOUT_MS), at most 2^31 − 1 (a longer Node timer fires at once). @default 200
   */
  storeTimeoutMs?: number;
  /**
   * The store counts as unreachable once a store call failed and the last good store reply is older
   * than this, in ms (a gateway too busy to ask is not put on its fail mode: see StoreHealth); at most
   * windowMs, and at least syncMs + storeTimeoutMs (or windowMs, if that is less): see requireStaleAfterMs.
   * @default min(2·syncMs + storeTimeoutMs, windowMs)
   */
  staleAfterMs?: number;
  /** Local time in ms. Only the runtime reads it; the designs get `now` passed in. @default Date.now */
  clock?: () => number;
  /** Uniform in [0, 1): picks the sync timer's phase. @default Math.random */
  random?: () => number;
  /**
   * Most keys the gateway holds state for (key state + outage records), so a flood of distinct keys
   * cannot exhaust its memory. At the cap it drops idle state first, then the least recently used
   * keys whose admits the store already has, down to 7/8 of the cap; if every key still holds admits
   * the store has not confirmed, a request for a new key is rejected (and a sync is started) until a
   * sync frees some. A key dropped this way starts afresh on its next request, as a new key does.
   * @default 1_000_000
   */
  maxKeys?: number;
}

/** AsyncGatewayOptions checked, with every default filled in. */
export interface ResolvedAsyncGatewayOptions {
  options: ResolvedOptions;
  store: AsyncStore;
  failMode: FailMode;
  storeTimeoutMs: number;
  staleAfterMs: number;
  clock: () => number;
  random: () => number;
  maxKeys: number;
}

/** Checks every option at once (ConfigErrors naming each bad field) and fills in the defaults. */
export function resolveAsyncGatewayOptions(opts: AsyncGatewayOptions): ResolvedAsyncGatewayOptions {
  if (opts === null || typeof opts !== 'object') throw new ConfigError('options', 'must be an object');
  // every bad option is reported at once (ConfigErrors); a relation once its fields are valid
  const c = new ConfigChecks();
  requireKnownFields('', opts as unknown as Record<string, unknown>, ASYNC_GATEWAY_FIELDS, c);
  const storeTimeoutMs = c.check(() => requireTimeoutMs('storeTimeoutMs', opts.storeTimeoutMs ?? 200));
  const options = c.check(() => resolveGatewayOptions(opts, storeTimeoutMs ?? 0));
  const store = c.check(() => requireStore(opts.store));
  c.check(() => {
    if (opts.gateways === 'auto' && store !== undefined && typeof store.heartbeat !== 'function') {
      throw new ConfigError(
        'gateways',
        "'auto' needs a store that counts live gateways (MemoryStore, RedisStore: heartbeat)",
      );
    }
  });
  const failMode = c.check(() => requireFailMode(opts.failMode ?? 'local'));
  const staleAfterMs = c.check(() => requireStaleAfterMs(opts.staleAfterMs, options, storeTimeoutMs));
  const clock = c.check(() => requireFunction('clock', opts.clock ?? Date.now));
  const random = c.check(() => requireFunction('random', opts.random ?? Math.random));
  const maxKeys = c.check(() => requirePositiveInteger('maxKeys', opts.maxKeys ?? 1_000_000));
  c.done();
  // every check passed: none of these is undefined
  return {
    options: options as ResolvedOptions,
    store: store as AsyncStore,
    failMode: failMode as FailMode,
    storeTimeoutMs: storeTimeoutMs as number,
    staleAfterMs: staleAfterMs as number,
    clock: clock as () => number,
    random: random as () => number,
    maxKeys: maxKeys as number,
  };
}

function requireFailMode(v: unknown): FailMode {
  if (typeof v !== 'string' || !(FAIL_MODES as readonly string[]).includes(v)) {
    throw new ConfigError('failMode', `must be one of ${FAIL_MODES.join(', ')}; got ${JSON.stringify(v)}`);
  }
  return v as FailMode;
}

function requireFunction<F extends (...args: never[]) => unknown>(field: string, v: F): F {
  if (typeof v !== 'function') throw new ConfigError(field, `must be a function, got ${typeof v}`);
  return v;
}

/** Every option of AsyncGatewayOptions; any other name (a typo such as `syncMS`) is refused. */
const ASYNC_GATEWAY_OPTIONS = {
  id: true,
  design: true,
  limit: true,
  windowMs: true,
  windowKind: true,
  policyName: true,
  gateways: true,
  initialGateways: true,
  syncMs: true,
  leaseTtlMs: true,
  horizonMs: true,
  reads: true,
  store: true,
  failMode: true,
  storeTimeoutMs: true,
  staleAfterMs: true,
  clock: true,
  random: true,
  maxKeys: true,
} satisfies Record<keyof AsyncGatewayOptions, true>;
/** The names of every option (an option added to AsyncGatewayOptions must be added above, or typecheck fails). */
export const ASYNC_GATEWAY_FIELDS: readonly string[] = Object.keys(ASYNC_GATEWAY_OPTIONS);

/**
 * A timer's delay: Node fires a timer longer than 2^31 − 1 ms after 1 ms, so every call would time
 * out; and one under 1 ms (MIN_STORE_TIMEOUT_MS) no store call can meet.
 */
function requireTimeoutMs(field: string, v: unknown): number {
  const ms = requirePositiveFinite(field, v);
  if (ms > MAX_TIMER_MS) throw new ConfigError(field, `must be at most ${MAX_TIMER_MS} ms, got ${ms}`);
  if (ms < MIN_STORE_TIMEOUT_MS) {
    throw new ConfigError(
      field,
      `must be at least ${MIN_STORE_TIMEOUT_MS} ms (timers count whole ms; no store answers sooner), got ${ms}`,
    );
  }
  return ms;
}

/**
 * staleAfterMs: at most W, since it bounds the admits a limiter collects before the fail mode takes
 * over (see AsyncGateway's class comment, Bounded memory); and at least syncMs + storeTimeoutMs, the longest a healthy store
 * leaves between two answered syncs (the next tick, then a reply within its timeout): shorter, a
 * store that answers every call in time is counted as down for part of every cycle (staleAfterMs
 * below syncMs degraded most decisions with Redis healthy). Where that exceeds W, W is the most
 * there is room for, and the least accepted. @default min(2·syncMs + storeTimeoutMs, W)
 */
function requireStaleAfterMs(
  v: number | undefined,
  options: ResolvedOptions | undefined,
  storeTimeoutMs: number | undefined,
): number | undefined {
  if (options === undefined || storeTimeoutMs === undefined) {
    // the relations cannot be judged; the value itself still can
    return v === undefined ? undefined : requirePositiveFinite('staleAfterMs', v);
  }
  const { syncMs } = options.fleet;
  const { windowMs } = options.policy;
  const stale = requirePositiveFinite('staleAfterMs', v ?? Math.min(2 * syncMs + storeTimeoutMs, windowMs));
  if (stale > windowMs) {
    throw new ConfigError('staleAfterMs', `must not exceed windowMs (${windowMs}), got ${stale}`);
  }
  const least = Math.min(syncMs + storeTimeoutMs, windowMs);
  if (stale < least) {
    throw new ConfigError(
      'staleAfterMs',
      `must be at least syncMs + storeTimeoutMs (${syncMs + storeTimeoutMs}), or windowMs (${windowMs}) if that is less: ` +
        `a store answering every sync within its timeout would count as down; got ${stale}`,
    );
  }
  return stale;
}

function requireStore(s: unknown): AsyncStore {
  const o = s as Partial<AsyncStore> | null | undefined;
  if (o === null || typeof o !== 'object' || typeof o.sync !== 'function') {
    throw new ConfigError('store', 'must be an AsyncStore (with sync, logAdmit, ask and voidLogAdmits)');
  }
  if (
    typeof o.logAdmit !== 'function' ||
    typeof o.ask !== 'function' ||
    typeof o.voidLogAdmits !== 'function'
  ) {
    throw new ConfigError('store', 'must be an AsyncStore (with sync, logAdmit, ask and voidLogAdmits)');
  }
  // a synchronous Store (MemoryStore) too: one code path, every call a promise
  return asAsyncStore(o as AnyStore);
}
