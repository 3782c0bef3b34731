// How a request is read before any policy decides: its key and its cost, each checked, a bad one
// handled by its action (onInvalidKey, onInvalidCost). The middleware's decider (core.ts) and the
// sidecar's HTTP side (sidecar/http-server.ts, its key and cost from headers) read requests with
// it, so a key or a cost means the same on both paths.
import { costProblem, keyProblem, MAX_KEY_LENGTH } from '../config.js';
import type { InvalidCostAction, InvalidKeyAction } from './http-options.js';

/** What a RequestReading is built from. */
export interface ReadingOptions<R> {
  /** The request's key (addr: the client's address as the caller keys it); undefined: addr. */
  key: ((req: R, addr: string) => unknown) | undefined;
  /** The request's cost; undefined: 1. */
  cost: ((req: R) => unknown) | undefined;
  onKey: InvalidKeyAction<R>;
  onCost: InvalidCostAction<R>;
  /** What is wrong with a key (null: nothing). @default config's keyProblem */
  keyProblem?: (key: unknown) => string | null;
  /** What is wrong with a cost (null: nothing). @default config's costProblem */
  costProblem?: (cost: unknown) => string | null;
}

/** A key or a cost not taken: the request is skipped (an action 'skip'), or refused for `problem`. */
export type NotRead = typeof SKIP_REQUEST | { problem: string };

/** The request is not limited (an action 'skip'). */
export const SKIP_REQUEST = Symbol('skip request');

/**
 * A request's key and cost, each read, checked and, when bad, replaced or refused by its action.
 * Two functions rather than one answer holding both: the middleware reads every request with them,
 * and the good key and cost come back as they are, with no object made for them.
 */
export interface RequestReading<R> {
  key(req: R, addr: string): string | NotRead;
  cost(req: R): number | NotRead;
}

/** A RequestReading for these options (checked by the caller: deciderSetup, the sidecar's options). */
export function requestReading<R>(o: ReadingOptions<R>): RequestReading<R> {
  const { key: keyOf, cost: costOf, onKey, onCost } = o;
  const badKey = o.keyProblem ?? keyProblem;
  const badCost = o.costProblem ?? costProblem;
  return {
    key(req, addr) {
      if (keyOf === undefined) return addr;
      const k: unknown = keyOf(req, addr);
      // the check written out (the common case); the rare bad key goes out of line
      if (typeof k === 'string' && k.length > 0 && k.length <= MAX_KEY_LENGTH) return k;
      return fixValue(onKey, req, k, badKey, 'key');
    },
    cost(req) {
      if (costOf === undefined) return 1;
      const c: unknown = costOf(req);
      if (typeof c === 'number' && Number.isInteger(c) && c >= 1) return c;
      return fixValue(onCost, req, c, badCost, 'cost');
    },
  };
}

/**
 * A bad key's or cost's replacement, or the request skipped, or refused: `problem` says what is
 * wrong with a value, null when nothing is.
 */
function fixValue<R, V extends string | number>(
  onBad: 'reject' | 'skip' | ((req: R, problem: string) => V),
  req: R,
  value: unknown,
  problem: (v: unknown) => string | null,
  what: string,
): V | NotRead {
  const why = problem(value) ?? `${what} is not valid`;
  if (onBad === 'skip') return SKIP_REQUEST;
  if (onBad === 'reject') return { problem: why };
  const v = onBad(req, why);
  return problem(v) === null ? v : { problem: why };
}
