import { ConfigError } from '../config.js';
import type { Decision } from '../gateway/decision.js';
import type { AsyncGateway } from '../gateway/runtime/index.js';
import { policyTag } from '../store/policy-tag.js';
import { refundsNotSupported } from './core.js';
import { type OnePolicyOptions, onePolicyGateway } from './one-policy.js';
import {
  asHits,
  type CountingGateway,
  NO_REFUND,
  NO_RESET,
  notSupported,
  peekHits,
  requireSamePolicy,
} from './store-hits.js';

/** express-rate-limit's ClientRateLimitInfo (its Store interface's answer), without depending on it. */
export interface ClientRateLimitInfo {
  totalHits: number;
  resetTime: Date | undefined;
}

/** The options express-rate-limit hands a store's `init` that this store reads. */
export interface ExpressRateLimitInitOptions {
  limit?: unknown;
  max?: unknown;
  windowMs?: unknown;
  skipSuccessfulRequests?: unknown;
  skipFailedRequests?: unknown;
}

/**
 * FleetlimitStore's options when it makes its gateway: every gateway option but the limit and the
 * window, which it takes from express-rate-limit's `limit` (or `max`) and `windowMs` in `init`; if
 * given here too they must be the same.
 */
export type FleetlimitStoreOptions = Omit<OnePolicyOptions, 'limit' | 'windowMs'> & {
  limit?: number;
  windowMs?: number;
};

/**
 * A store for express-rate-limit (its `Store` interface), backed by a fleetlimit gateway: keep the
 * middleware, its options, headers and handler, and change only the store
 * (`rateLimit({ windowMs, limit, store: new FleetlimitStore({ store, gateways: 3, id }) })`).
 *
 * `increment` is the gateway's decision, made locally as the design does, answered as a hit count
 * express-rate-limit's own `totalHits > limit` reaches the same decision with (asHits), and a
 * `resetTime` from the true wait, so Retry-After says when a retry may succeed.
 *
 * Given a gateway, the limit and window express-rate-limit has must be the gateway's; given options,
 * the gateway is made in `init` from them (design and syncMs chosen as OnePolicyOptions says) and
 * started, and `shutdown()` stops it. `init` throws a ConfigError naming the field for a mismatch, a
 * per-request `limit` function, or `skipSuccessfulRequests`/`skipFailedRequests` (refunds are not
 * supported yet); express-rate-limit logs it, and every request then fails with it (its error
 * handler), so nothing is counted in a way the options do not say.
 */
export class FleetlimitStore {
  /** Keys of one instance are seen by the others (the fleet shares them): express-rate-limit's flag. */
  readonly localKeys = false;
  #gateway: CountingGateway | null;
  readonly #options: FleetlimitStoreOptions | null;
  readonly #owned: boolean;
  readonly #clock: () => number;
  #failure: Error | null = null;

  constructor(gateway: AsyncGateway | CountingGateway | FleetlimitStoreOptions) {
    if (gateway === null || typeof gateway !== 'object') {
      throw new ConfigError('store', 'FleetlimitStore takes a fleetlimit gateway or its options');
    }
    if (typeof (gateway as Partial<CountingGateway>).admitNow === 'function') {
      this.#gateway = gateway as CountingGateway;
      this.#options = null;
      this.#owned = false;
    } else {
      const opts = gateway as FleetlimitStoreOptions;
      this.#options = opts;
      this.#owned = true;
      // with the limit and window given here, the gateway (and any error in its options) comes now
      this.#gateway =
        opts.limit !== undefined && opts.windowMs !== undefined
          ? onePolicyGateway(opts as OnePolicyOptions)
          : null;
    }
    this.#clock = Date.now;
  }

  /** The gateway deciding (null before `init` when it is made there). */
  get gateway(): CountingGateway | null {
    return this.#gateway;
  }

  /** Tells express-rate-limit's double-count check one policy's keys from another's. */
  get prefix(): string {
    return this.#gateway === null ? 'fleetlimit:' : `fleetlimit:${policyTag(this.#gateway.options.policy)}:`;
  }

  /** express-rate-limit calls it once, with its options: checks them (see the class). */
  init(options: ExpressRateLimitInitOptions): void {
    try {
      this.#init(options);
    } catch (err) {
      this.#failure = err as Error;
      throw err;
    }
  }

  #init(o: ExpressRateLimitInitOptions): void {
    for (const f of ['skipSuccessfulRequests', 'skipFailedRequests'] as const) {
      if (o[f] !== undefined && o[f] !== false) throw refundsNotSupported(f);
    }
    // express-rate-limit takes `max` as another name for `limit`
    const limit = { field: o.max !== undefined && o.max === o.limit ? 'max' : 'limit', value: o.limit };
    const window = { field: 'windowMs', value: o.windowMs };
    if (this.#gateway === null) {
      const opts = this.#options!;
      // a function is refused here; the gateway's own check names a bad number
      for (const f of [limit, window]) {
        if (typeof f.value === 'function') {
          throw new ConfigError(
            f.field,
            "a function of the request is not supported with FleetlimitStore: set the number; for limits per request, use fleetlimit's own middleware with a set of policies",
          );
        }
      }
      for (const [f, v] of [
        ['limit', opts.limit],
        ['windowMs', opts.windowMs],
      ] as const) {
        if (v !== undefined && v !== (f === 'limit' ? limit.value : window.value)) {
          throw new ConfigError(
            f === 'limit' ? limit.field : f,
            `is ${JSON.stringify(f === 'limit' ? limit.value : window.value)} but FleetlimitStore's ${f} is ${v}: they must be the same`,
          );
        }
      }
      this.#gateway = onePolicyGateway({
        ...opts,
        limit: limit.value as number,
        windowMs: window.value as number,
      });
      return;
    }
    requireSamePolicy(this.#gateway.options.policy, limit, window);
  }

  /** One request: the gateway's decision, as express-rate-limit's hit count (see the class). */
  increment(key: string): ClientRateLimitInfo | Promise<ClientRateLimitInfo> {
    const gw = this.#ready();
    const d = gw.admitNow(key);
    return d instanceof Promise ? d.then((v) => this.#info(gw, v)) : this.#info(gw, d);
  }

  #info(gw: CountingGateway, d: Decision): ClientRateLimitInfo {
    const { hits, waitMs } = asHits(d, gw.options.policy);
    return { totalHits: hits, resetTime: new Date(this.#clock() + waitMs) };
  }

  /** The key's count as this gateway sees it, without counting; undefined if it holds no state for it. */
  get(key: string): ClientRateLimitInfo | undefined {
    const peek = peekHits(this.#ready(), key);
    if (peek === null) return undefined;
    return { totalHits: peek.hits, resetTime: new Date(this.#clock() + peek.waitMs) };
  }

  /** A refund: not supported yet (init refuses the options that call it). */
  decrement(_key: string): Promise<void> {
    return Promise.reject(notSupported('FleetlimitStore.decrement', NO_REFUND));
  }

  /** Not supported yet: rejects, saying so (never a silent no-op). */
  resetKey(_key: string): Promise<void> {
    return Promise.reject(notSupported('FleetlimitStore.resetKey', NO_RESET));
  }

  /** Not supported yet: rejects, saying so. */
  resetAll(): Promise<void> {
    return Promise.reject(notSupported('FleetlimitStore.resetAll', NO_RESET));
  }

  /** Stops the gateway this store made (its last sync pushes its admits); a gateway passed in is the caller's. */
  async shutdown(): Promise<void> {
    if (this.#owned && this.#gateway !== null) await this.#gateway.stop();
  }

  #ready(): CountingGateway {
    if (this.#failure !== null) throw this.#failure;
    if (this.#gateway === null) {
      throw new Error(
        'fleetlimit: FleetlimitStore has no gateway yet: express-rate-limit makes it in init, from its limit and windowMs',
      );
    }
    return this.#gateway;
  }
}
