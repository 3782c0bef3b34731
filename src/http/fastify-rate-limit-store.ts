import { createHash } from 'node:crypto';
import { ConfigError } from '../config.js';
import type { Decision } from '../gateway/decision.js';
import type { AsyncGateway } from '../gateway/runtime/index.js';
import type { FleetlimitStoreOptions } from './express-rate-limit-store.js';
import { type OnePolicyOptions, onePolicyGateway } from './one-policy.js';
import { asHits, type CountingGateway, peekHits, requireSamePolicy } from './store-hits.js';

/** @fastify/rate-limit's answer to `incr` and `read`: the key's count and the wait in ms. */
export interface FastifyRateLimitStoreResult {
  current: number;
  ttl: number;
}

type Callback = (err: Error | null, result?: FastifyRateLimitStoreResult) => void;

/** @fastify/rate-limit's custom store interface (FastifyRateLimitStore in its types), without depending on it. */
export interface FastifyRateLimitStoreLike {
  incr(key: string, cb: Callback, timeWindow: number, max: number): void;
  read(key: string, cb: Callback, timeWindow: number, max: number): void;
  /** Gets a route's merged parameters (FastifyRateLimitStoreParams). */
  child(routeOptions: unknown): FastifyRateLimitStoreLike;
}

/** The parameters @fastify/rate-limit constructs its store with (the plugin's, or a route's merged ones). */
export interface FastifyRateLimitStoreParams {
  max?: unknown;
  timeWindow?: unknown;
  continueExceeding?: unknown;
  exponentialBackoff?: unknown;
  ban?: unknown;
  routeInfo?: { method?: string | readonly string[]; url?: string };
  /** The plugin's other options and a route's, which the store does not read. */
  [option: string]: unknown;
}

/** What `fleetlimitFastifyStore` returns: the store class for @fastify/rate-limit's `store` option. */
export interface FleetlimitFastifyStore {
  /** Gets the plugin's parameters (FastifyRateLimitStoreParams). */
  new (params: unknown): FastifyRateLimitStoreLike;
  /** The gateways this store made (the plugin's, one per route with its own `config.rateLimit`), by policy name. */
  readonly gateways: ReadonlyMap<string, AsyncGateway>;
  /** Stops every gateway it made (their last syncs push their admits): on the app's `onClose`. */
  close(): Promise<void>;
}

/** The plugin's own gateway's name when the options give none. */
const ROOT = '';

/**
 * A store for @fastify/rate-limit (its custom-store interface), backed by fleetlimit gateways: keep the
 * plugin, `max`, `timeWindow`, `allowList`, `keyGenerator`, `errorResponseBuilder`, per-route
 * `config.rateLimit` and the `onExceeding`/`onExceeded` hooks, and change only the store
 * (`app.register(rateLimit, { max: 100, timeWindow: 60_000, store: fleetlimitFastifyStore({ store, gateways: 3, id }) })`).
 *
 * `incr` is the gateway's decision, made locally as the design does, answered as a count the plugin's
 * own `current > max` reaches the same decision with (asHits), and the true wait as its `ttl`, so
 * x-ratelimit-reset and retry-after say when a retry may succeed.
 *
 * Given options, the plugin's gateway is made from its `max` and `timeWindow`, and each route with its
 * own `config.rateLimit` gets a gateway of its own (a policy named after the route, so its counts are
 * its own, as the plugin keeps them), all started; `close()` stops them. Given a gateway, `max` and
 * `timeWindow` must be its limit and window, and routes cannot have limits of their own. Refused at
 * registration with a ConfigError naming the field: a `max` or `timeWindow` that is a function of the
 * request, a mismatch, and `ban`, `continueExceeding` and `exponentialBackoff` (they change how the
 * store counts, which the gateway's design decides).
 */
export function fleetlimitFastifyStore(
  target: AsyncGateway | CountingGateway | FleetlimitStoreOptions,
): FleetlimitFastifyStore {
  if (target === null || typeof target !== 'object') {
    throw new ConfigError('store', 'fleetlimitFastifyStore takes a fleetlimit gateway or its options');
  }
  const given = typeof (target as Partial<CountingGateway>).admitNow === 'function';
  const opts = given ? null : (target as FleetlimitStoreOptions);
  const made = new Map<string, AsyncGateway>();
  let unnamed = 0;

  /** Checks a plugin's or route's parameters; the gateway, made on first use (a route never hit costs no timer). */
  const gatewayFor = (params: FastifyRateLimitStoreParams, name: string): (() => CountingGateway) => {
    refuseCountingOptions(params);
    const max = { field: 'max', value: params.max };
    const timeWindow = { field: 'timeWindow', value: params.timeWindow };
    if (opts === null) {
      if (name !== ROOT) {
        throw new ConfigError(
          'config.rateLimit',
          'a route with limits of its own needs fleetlimitFastifyStore made from options (store, gateways, id), which makes a gateway per route; given one gateway, every route shares its policy',
        );
      }
      const gw = target as CountingGateway;
      requireSamePolicy(gw.options.policy, max, timeWindow);
      return () => gw;
    }
    refuseRequestFunctions(params);
    if (name === ROOT) requireOptionsMatch(opts, params);
    const policyName = name === ROOT ? opts.policyName : name;
    const tag = `${policyName ?? ''}|${params.max}|${params.timeWindow}`;
    const one: OnePolicyOptions = {
      ...opts,
      id: name === ROOT ? opts.id : `${opts.id}/${name}`,
      limit: params.max as number,
      windowMs: params.timeWindow as number,
    };
    if (policyName !== undefined) one.policyName = policyName;
    const make = () => {
      let gw = made.get(tag);
      if (gw === undefined) {
        gw = onePolicyGateway(one);
        made.set(tag, gw);
      }
      return gw;
    };
    // the plugin's own gateway now: a bad gateway option fails the registration
    if (name === ROOT) make();
    return make;
  };

  class Store implements FastifyRateLimitStoreLike {
    readonly #make: () => CountingGateway;
    #made: CountingGateway | null = null;

    constructor(params: unknown, name = ROOT) {
      this.#make = gatewayFor((params ?? {}) as FastifyRateLimitStoreParams, name);
    }

    get #gw(): CountingGateway {
      if (this.#made === null) this.#made = this.#make();
      return this.#made;
    }

    incr(key: string, cb: Callback, timeWindow: number, max: number): void {
      let gw: CountingGateway;
      try {
        gw = this.#gw;
      } catch (err) {
        cb(err as Error);
        return;
      }
      const policy = gw.options.policy;
      if (timeWindow !== policy.windowMs || max !== policy.limit) {
        cb(
          new ConfigError(
            'max',
            `${max} per ${timeWindow} ms is not the gateway's ${policy.limit} per ${policy.windowMs} ms`,
          ),
        );
        return;
      }
      let d: Decision | Promise<Decision>;
      try {
        // keyGenerator may give a number
        d = gw.admitNow(String(key));
      } catch (err) {
        cb(err as Error);
        return;
      }
      if (d instanceof Promise) d.then((v) => cb(null, result(v, gw)), cb);
      else cb(null, result(d, gw));
    }

    read(key: string, cb: Callback): void {
      if (this.#made === null) {
        cb(null, { current: 0, ttl: 0 });
        return;
      }
      const peek = peekHits(this.#made, String(key));
      cb(null, peek === null ? { current: 0, ttl: 0 } : { current: peek.hits, ttl: peek.waitMs });
    }

    child(routeOptions: unknown): FastifyRateLimitStoreLike {
      const info = (routeOptions as FastifyRateLimitStoreParams | null)?.routeInfo;
      return new Store(routeOptions, routeName(info) ?? `rateLimit-${++unnamed}`);
    }
  }

  return Object.assign(Store, {
    gateways: made as ReadonlyMap<string, AsyncGateway>,
    close: async () => {
      await Promise.all([...made.values()].map((g) => g.stop()));
    },
  });
}

/** `max` and `timeWindow` must be numbers: a function of the request is not a limit a gateway can share. */
function refuseRequestFunctions(params: FastifyRateLimitStoreParams): void {
  for (const field of ['max', 'timeWindow'] as const) {
    if (typeof params[field] === 'function') {
      throw new ConfigError(
        field,
        'a function of the request is not supported with fleetlimit’s store: set the number; for limits per request, use fleetlimit’s own plugin with a set of policies',
      );
    }
  }
}

/** The plugin's `max` and `timeWindow` must be the store options' limit and window, where those are given. */
function requireOptionsMatch(opts: FleetlimitStoreOptions, params: FastifyRateLimitStoreParams): void {
  for (const [f, v, want] of [
    ['max', opts.limit, params.max],
    ['timeWindow', opts.windowMs, params.timeWindow],
  ] as const) {
    if (v !== undefined && v !== want) {
      throw new ConfigError(f, `is ${JSON.stringify(want)} but the store's is ${v}: they must be the same`);
    }
  }
}

function result(d: Decision, gw: CountingGateway): FastifyRateLimitStoreResult {
  const { hits, waitMs } = asHits(d, gw.options.policy);
  return { current: hits, ttl: waitMs };
}

function refuseCountingOptions(p: FastifyRateLimitStoreParams): void {
  const why =
    'is not supported with fleetlimit’s store: it changes how the store counts, which the gateway’s design decides';
  if (p.continueExceeding === true) throw new ConfigError('continueExceeding', why);
  if (p.exponentialBackoff === true) throw new ConfigError('exponentialBackoff', why);
  if (typeof p.ban === 'number' && p.ban >= 0) throw new ConfigError('ban', why);
}

/**
 * A route's policy name: its method and URL in the characters a name may hold, and a hash of both,
 * so two routes never share one (the plugin keeps each configured route's counts apart).
 */
export function routeName(info: FastifyRateLimitStoreParams['routeInfo']): string | null {
  if (info?.url === undefined) return null;
  const method = Array.isArray(info.method) ? info.method.join(',') : String(info.method ?? '');
  const whole = `${method} ${info.url}`;
  const readable = whole.replace(/[^A-Za-z0-9_.~-]+/g, '_').slice(0, 48);
  const hash = createHash('sha256').update(whole).digest('hex').slice(0, 8);
  return `${readable}-${hash}`;
}
