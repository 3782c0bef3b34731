import { ConfigError } from '../config.js';
import type { Decision } from '../gateway/decision.js';
import { AdmitLedger } from '../gateway/runtime/admit-ledger.js';
import type { AsyncGateway } from '../gateway/runtime/index.js';
import { policyTag } from '../store/policy-tag.js';
import { type OnePolicyOptions, onePolicyGateway } from './one-policy.js';
import {
  asHits,
  type CountingGateway,
  NO_RESET,
  NO_RESET_ALL,
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
/** Keys whose decisions a refunding store keeps at most (see FleetlimitStore.decrement). */
const MAX_HELD_KEYS = 100_000;

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
 * per-request `limit` function, or `skipSuccessfulRequests`/`skipFailedRequests` with a gateway
 * that cannot take admits back; express-rate-limit logs it, and every request then fails with it
 * (its error handler), so nothing is counted in a way the options do not say.
 *
 * `decrement(key)` is a refund (AsyncGateway.refund), which express-rate-limit calls for
 * skipSuccessfulRequests and skipFailedRequests once a response is known. It names only the key, so
 * the store keeps, per key, the admits of the last window not taken back yet, and takes back the
 * oldest: that frees the slot for no longer than the request's own admit would have (never more
 * than the options say). With skipFailedRequests express-rate-limit also decrements a request it
 * limited (its 429 is a failure): the store counted nothing for it, so such a decrement takes
 * nothing back — it is matched with the key's oldest limited request first. (A `requestWasSuccessful`
 * that calls a 429 a success under skipSuccessfulRequests would have its limited requests take back
 * admits: leave 429s failed.)
 *
 * `resetKey(key)` is the gateway's (AsyncGateway.resetKey): the key's admits this instance has not
 * pushed are forgotten at once, those the store counts at its next sync round, so every instance
 * admits the key again from its next sync after that. `resetAll` does so for every key (see there).
 */
export class FleetlimitStore {
  /** Keys of one instance are seen by the others (the fleet shares them): express-rate-limit's flag. */
  readonly localKeys = false;
  #gateway: CountingGateway | null;
  readonly #options: FleetlimitStoreOptions | null;
  readonly #owned: boolean;
  readonly #clock: () => number;
  #failure: Error | null = null;
  /** skipSuccessfulRequests or skipFailedRequests is on: decisions are kept for `decrement`. */
  #refunds = false;
  /** skipFailedRequests: express-rate-limit decrements the requests it limited too. */
  #limitedDecrement = false;
  /** Per key, the admits not taken back and the instants of limited requests, of the last window. */
  #held: AdmitLedger | null = null;

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
    this.#refunds = o.skipSuccessfulRequests === true || o.skipFailedRequests === true;
    this.#limitedDecrement = o.skipFailedRequests === true;
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
      this.#requireRefunds(o);
      return;
    }
    requireSamePolicy(this.#gateway.options.policy, limit, window);
    this.#requireRefunds(o);
  }

  #requireRefunds(o: ExpressRateLimitInitOptions): void {
    if (!this.#refunds) return;
    const gw = this.#gateway!;
    if (typeof gw.refund !== 'function' || gw.refunds !== true) {
      throw new ConfigError(
        o.skipSuccessfulRequests === true ? 'skipSuccessfulRequests' : 'skipFailedRequests',
        'needs a gateway that takes admits back (decrement): an AsyncGateway on a store with refundAdmits (MemoryStore, RedisStore), or the split design',
      );
    }
  }

  /** One request: the gateway's decision, as express-rate-limit's hit count (see the class). */
  increment(key: string): ClientRateLimitInfo | Promise<ClientRateLimitInfo> {
    const gw = this.#ready();
    const d = gw.admitNow(key);
    return d instanceof Promise ? d.then((v) => this.#info(gw, v, key)) : this.#info(gw, d, key);
  }

  #info(gw: CountingGateway, d: Decision, key: string): ClientRateLimitInfo {
    if (this.#refunds) this.#keep(gw, key, d);
    const { hits, waitMs } = asHits(d, gw.options.policy);
    return { totalHits: hits, resetTime: new Date(this.#clock() + waitMs) };
  }

  /** The key's count as this gateway sees it, without counting; undefined if it holds no state for it. */
  get(key: string): ClientRateLimitInfo | undefined {
    const peek = peekHits(this.#ready(), key);
    if (peek === null) return undefined;
    return { totalHits: peek.hits, resetTime: new Date(this.#clock() + peek.waitMs) };
  }

  /** Keeps a decision for `decrement` (see the class). */
  #keep(gw: CountingGateway, key: string, d: Decision): void {
    const now = gw.now();
    const held = (this.#held ??= new AdmitLedger(gw.options.policy.windowMs, MAX_HELD_KEYS));
    if (d.allowed) held.keepAdmit(key, d, 1, now);
    else if (this.#limitedDecrement) held.keepLimited(key, now);
  }

  /**
   * A refund (skipSuccessfulRequests, skipFailedRequests): takes back the key's oldest admit not
   * taken back yet, or matches a limited request, which took nothing (see the class).
   */
  decrement(key: string): Promise<void> {
    try {
      const gw = this.#ready();
      const held = this.#held;
      if (held === null) return Promise.resolve();
      const now = gw.now();
      if (!held.takeLimited(key, now)) held.takeBack(key, 1, now, (d) => gw.refund!(key, d));
      return Promise.resolve();
    } catch (err) {
      return Promise.reject(err);
    }
  }

  /**
   * Unblocks a client across the fleet (AsyncGateway.resetKey; see the class). Resolves once the store
   * applied the reset, or once an attempt failed (the gateway sends it again at its next round; a
   * rejection here would go unhandled where express-rate-limit's resetKey is not awaited). Rejects on
   * a gateway whose store cannot reset, saying so (never a silent no-op).
   */
  async resetKey(key: string): Promise<void> {
    const gw = this.#ready();
    if (gw.resetKey === undefined || gw.resets === false) {
      throw notSupported('FleetlimitStore.resetKey', NO_RESET);
    }
    // the decisions kept for decrement were forgotten by the reset: nothing left to take back
    this.#held?.forget(key);
    await gw.resetKey(key);
  }

  /**
   * Resets every key of the limiter across the fleet (AsyncGateway.resetAll; docs/decisions/0015-reset-all.md):
   * the admits of every key up to this call stop counting, on this instance from its next sync round,
   * on the others from their next sync after that. Resolves once done; rejects, saying so, if some
   * part failed (the store did not answer: call it again) or the gateway cannot reset.
   */
  async resetAll(): Promise<void> {
    const gw = this.#ready();
    if (gw.resetAll === undefined) throw notSupported('FleetlimitStore.resetAll', NO_RESET_ALL);
    // every decision kept for decrement was forgotten by the reset: nothing left to take back
    this.#held = null;
    if (!(await gw.resetAll())) {
      throw new Error(
        'fleetlimit: FleetlimitStore.resetAll: the store did not answer for every key; call it again',
      );
    }
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
