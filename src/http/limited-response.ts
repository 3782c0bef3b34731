// How a limited (429) or bad (400) request is answered: the statusCode, message and handler options
// checked once, and the one writer the node:http and Express adapters share.
import { ConfigError } from '../config.js';
import type { HttpDecision, HttpLimited } from './http-decision.js';

/**
 * What a limited request (429) gets, named as in express-rate-limit (`statusCode`, `message`,
 * `handler`). The RateLimit headers and Retry-After are set before any of it. A 400 for a bad key or
 * cost is not affected.
 */
export interface LimitedResponseOptions<Req, Res> {
  /** Status of a limited response: 400 to 599. @default 429 */
  statusCode?: number;
  /**
   * Body of a limited response: a string is sent as text/plain, anything else as JSON
   * (application/json), serialized once here. @default 'Too Many Requests\n', or for a cost over
   * the limit a line saying it can never be admitted
   */
  message?: string | Record<string, unknown> | readonly unknown[];
  /**
   * Takes the limited response over (statusCode and message are then unused): it must answer the
   * request (Express, node:http: `res.end`; Fastify: `reply.send`). It gets the decision (its policy,
   * key and the gateway's Decision). If it throws: Express `next(err)`, Fastify an error, node:http a 500.
   */
  handler?: (req: Req, res: Res, decision: HttpLimited) => unknown;
}

/** LimitedResponseOptions checked, with the body built once. */
export interface LimitedResponse<Req, Res> {
  statusCode: number;
  /** null: the decision's own body (the defaults). */
  body: string | null;
  contentType: string;
  handler: ((req: Req, res: Res, decision: HttpLimited) => unknown) | null;
}

const TEXT = 'text/plain; charset=utf-8';

/** Checks the limited-response options (a bad one throws a ConfigError naming it). */
export function limitedResponse<Req, Res>(
  opts: LimitedResponseOptions<Req, Res> = {},
): LimitedResponse<Req, Res> {
  const { statusCode = 429, message, handler } = opts;
  if (!Number.isInteger(statusCode) || statusCode < 400 || statusCode > 599) {
    throw new ConfigError(
      'statusCode',
      `must be an integer from 400 to 599, got ${JSON.stringify(statusCode)}`,
    );
  }
  if (handler !== undefined && typeof handler !== 'function') {
    throw new ConfigError('handler', `must be a function, got ${typeof handler}`);
  }
  let body: string | null = null;
  let contentType = TEXT;
  if (typeof message === 'string') body = message;
  else if (message !== undefined) {
    let json: string | undefined;
    try {
      json = message === null || typeof message !== 'object' ? undefined : JSON.stringify(message);
    } catch (e) {
      throw new ConfigError(
        'message',
        `must be a string or JSON-serializable, got an error: ${(e as Error).message}`,
      );
    }
    if (json === undefined) {
      throw new ConfigError('message', `must be a string or a JSON object or array, got ${typeof message}`);
    }
    body = json;
    contentType = 'application/json; charset=utf-8';
  }
  return { statusCode, body, contentType, handler: handler ?? null };
}

export const DEFAULT_LIMITED: LimitedResponse<unknown, unknown> = Object.freeze({
  statusCode: 429,
  body: null,
  contentType: TEXT,
  handler: null,
});

export const TOO_MANY_REQUESTS_BODY = 'Too Many Requests\n';

/** What the node:http and Express adapters write to (a node ServerResponse has all three). */
export interface ResponseLike {
  statusCode: number;
  setHeader(name: string, value: string): unknown;
  end(body: string): unknown;
}

/**
 * Sets the decision's headers and answers a 429 (as `limited` says) or 400 itself; true when the
 * request goes on to its handler.
 */
export function writeDecision<Req, Res extends ResponseLike>(
  req: Req,
  res: Res,
  out: HttpDecision,
  limited: LimitedResponse<Req, Res> = DEFAULT_LIMITED,
): boolean {
  for (const name in out.headers) res.setHeader(name, out.headers[name]);
  if (out.status === 200) return true;
  if (out.status === 429) {
    if (limited.handler !== null) {
      limited.handler(req, res, out);
      return false;
    }
    res.statusCode = limited.statusCode;
    res.setHeader('Content-Type', limited.contentType);
    res.end(limited.body ?? out.body ?? TOO_MANY_REQUESTS_BODY);
    return false;
  }
  res.statusCode = out.status;
  res.setHeader('Content-Type', TEXT);
  res.end(out.body ?? TOO_MANY_REQUESTS_BODY);
  return false;
}
