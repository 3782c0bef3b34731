// What the core handler answers for a request (go on, limited, bad request), and the two answers
// made without the gateway: a skipped request and a 400 for a bad key or cost.
import type { Decision } from '../gateway/decision.js';

interface HttpDecisionCommon {
  headers: Record<string, string>;
  /** The body of a 400, or of a 429 that is not the usual one (a cost over the limit). */
  body?: string;
  /** With a set of named policies: the name of the one the request was held to. */
  policy?: string;
}

/** The request goes on (the handler sets the real status): decided, or skipped (no key, no decision). */
export interface HttpGoOn extends HttpDecisionCommon {
  status: 200;
  /** null when skipped. */
  key: string | null;
  decision: Decision | null;
  /**
   * With skipSuccessfulRequests or skipFailedRequests, an admitted request's refund: takes it back
   * (once; AsyncGateway.refund). The adapters call it when the response says so (watchForRefund).
   */
  refund?: () => boolean;
}

/** A limited request: always a key and the gateway's decision (what a 429 handler gets). */
export interface HttpLimited extends HttpDecisionCommon {
  status: 429;
  key: string;
  decision: Decision;
}

/** The request's key or cost is bad (onInvalidKey, onInvalidCost): nothing was decided. */
export interface HttpBadRequest extends HttpDecisionCommon {
  status: 400;
  key: null;
  decision: null;
}

/**
 * What the core handler answers for a request, by status: 200 "go on", 429 limited, 400 a bad key or
 * cost. Narrowing on `status` gives a 429's `decision` and `key` without a null check.
 */
export type HttpDecision = HttpGoOn | HttpLimited | HttpBadRequest;

export type RequestDecider<R> = (req: R) => HttpDecision | Promise<HttpDecision>;

/** The longest problem a 400's body repeats: a bad value comes from the client and may be huge. */
const MAX_PROBLEM = 200;

/** A 400 for a bad key or cost: one line saying what is wrong, nothing from the server's insides. */
export function badRequest(problem: string): HttpDecision {
  const line = problem.length > MAX_PROBLEM ? `${problem.slice(0, MAX_PROBLEM)}…` : problem;
  return { status: 400, headers: {}, key: null, decision: null, body: `Bad Request: ${line}\n` };
}

export const SKIPPED: HttpDecision = Object.freeze({
  status: 200,
  headers: {},
  key: null,
  decision: null,
}) as HttpDecision;
