// skipSuccessfulRequests / skipFailedRequests: the options checked, and the watch on a response
// that takes an admitted request back once the response says so.
import { ConfigError } from '../config.js';
import type { HttpDecision } from './http-decision.js';
import type { RateLimitGateway } from './http-options.js';

/** The refund options checked (refundOptions): when to take an admitted request back. */
export interface RefundRule<Req, Res> {
  successful: boolean;
  failed: boolean;
  wasSuccessful: (req: Req, res: Res) => boolean | Promise<boolean>;
}

const STATUS_BELOW_400 = (_req: unknown, res: { statusCode: number }) => res.statusCode < 400;

/**
 * skipSuccessfulRequests, skipFailedRequests and requestWasSuccessful checked (a ConfigError naming
 * a bad one); null when neither skip option is on (nothing is ever taken back).
 */
export function refundOptions<Req, Res>(opts: object): RefundRule<Req, Res> | null {
  const o = opts as Record<string, unknown>;
  for (const f of ['skipSuccessfulRequests', 'skipFailedRequests'] as const) {
    if (o[f] !== undefined && typeof o[f] !== 'boolean') {
      throw new ConfigError(f, `must be true or false, got ${JSON.stringify(o[f])}`);
    }
  }
  const was = o.requestWasSuccessful;
  if (was !== undefined && typeof was !== 'function') {
    throw new ConfigError('requestWasSuccessful', `must be a function (req, res), got ${typeof was}`);
  }
  const successful = o.skipSuccessfulRequests === true;
  const failed = o.skipFailedRequests === true;
  if (!successful && !failed) return null;
  return {
    successful,
    failed,
    wasSuccessful:
      (was as RefundRule<Req, Res>['wasSuccessful'] | undefined) ??
      (STATUS_BELOW_400 as unknown as RefundRule<Req, Res>['wasSuccessful']),
  };
}

/** The gateway of each policy must take admits back for the refund options. */
export function requireRefunds(gateway: RateLimitGateway, field: string): void {
  if (typeof gateway.refund !== 'function' || gateway.refunds !== true) {
    throw new ConfigError(
      field,
      'needs a gateway that takes admits back: an AsyncGateway on a store with refundAdmits (MemoryStore, RedisStore), or the split design',
    );
  }
}

/** What watchForRefund listens to: the node response under the adapter's (Express, node:http: itself; Fastify: reply.raw). */
export interface ResponseEvents {
  readonly writableEnded: boolean;
  once(event: 'finish' | 'close' | 'error', listener: () => void): unknown;
}

/** The node response's events, if `res` has them (Express's `res`, node:http's, Fastify's `reply.raw`). */
export function eventsOf(res: unknown): ResponseEvents | undefined {
  return typeof (res as Partial<ResponseEvents> | null)?.once === 'function'
    ? (res as ResponseEvents)
    : undefined;
}

/**
 * Takes an admitted request back when its response says so (`rule`, as express-rate-limit does):
 * skipSuccessfulRequests once it finished and `wasSuccessful(req, res)` said true;
 * skipFailedRequests once it finished and that said false, or the connection closed before the
 * response ended, or it failed. At most once. A request not admitted, or without a refund, is left
 * alone.
 */
export function watchForRefund<Req, Res>(
  rule: RefundRule<Req, Res> | null,
  req: Req,
  res: Res,
  events: ResponseEvents | undefined,
  out: HttpDecision,
): void {
  if (rule === null || out.status !== 200 || out.refund === undefined || events === undefined) return;
  const refund = out.refund;
  let done = false;
  const take = () => {
    if (done) return;
    done = true;
    refund();
  };
  events.once('finish', () => {
    let ok: boolean | Promise<boolean>;
    try {
      ok = rule.wasSuccessful(req, res);
    } catch {
      return; // the request stays counted
    }
    const judge = (v: boolean) => {
      if (v ? rule.successful : rule.failed) take();
    };
    if (typeof ok === 'boolean') judge(ok);
    else Promise.resolve(ok).then(judge, () => {});
  });
  if (rule.failed) {
    events.once('close', () => {
      if (!events.writableEnded) take();
    });
    events.once('error', take);
  }
}
