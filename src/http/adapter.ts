import type { AsyncGateway } from '../gateway/runtime/index.js';
import type { PeerLike } from './client-address.js';
import {
  createRequestDecider,
  type HttpDecision,
  type LimitedResponse,
  type LimitedResponseOptions,
  limitedResponse,
  type RateLimitHttpOptions,
  type RateLimitTarget,
  type RefundRule,
  type RequestDecider,
  refundOptions,
} from './core.js';
import { type OnePolicyOptions, onePolicyGateway, splitOnePolicy, withGateway } from './one-policy.js';

/** An adapter's options: the core ones and what a limited request gets. */
export type AdapterOptions<Req, Res> = RateLimitHttpOptions<Req & PeerLike> &
  LimitedResponseOptions<Req, Res>;

/** What every adapter (Express, Fastify, node) builds once from its options. */
export interface AdapterParts<Req, Res> {
  decide: RequestDecider<Req>;
  limited: LimitedResponse<Req, Res>;
  refunds: RefundRule<Req, Res> | null;
}

/**
 * The decider, the limited answer and the refund rule, checked in this order so that a bad option
 * throws the same ConfigError whichever adapter it was given to.
 */
export function adapterParts<Req extends PeerLike, Res>(
  target: RateLimitTarget,
  opts: AdapterOptions<Req, Res> | undefined,
): AdapterParts<Req, Res> {
  return {
    decide: createRequestDecider<Req>(target, opts),
    limited: limitedResponse<Req, Res>(opts),
    refunds: refundOptions<Req, Res>(opts ?? {}),
  };
}

/** An adapter made on the gateway of one policy set on it, that gateway its `gateway` (see expressRateLimit). */
export function onOnePolicy<M extends object, T extends object>(
  all: OnePolicyOptions & M,
  make: (gw: AsyncGateway, middleware: M) => T,
): T & { gateway: AsyncGateway } {
  const { gateway, middleware } = splitOnePolicy<M>(all);
  return withGateway(onePolicyGateway(gateway), (gw) => make(gw, middleware));
}

/**
 * Decides `req` and hands the outcome to `then`: in this turn when the gateway decides locally, when
 * the store answers otherwise. A throw or rejection of the decider, and a throw of `then`, go to
 * `fail`: the server keeps serving whatever an option's function does.
 */
export function decideThen<Req>(
  decide: RequestDecider<Req>,
  req: Req,
  then: (o: HttpDecision) => void,
  fail: (err: unknown) => void,
): void {
  try {
    const out = decide(req);
    if (out instanceof Promise) {
      out.then((o) => {
        try {
          then(o);
        } catch (err) {
          fail(err);
        }
      }, fail);
    } else then(out);
  } catch (err) {
    fail(err);
  }
}
