import type { HttpFileOptions } from '../config-file.js';
import type { Decision } from '../gateway/decision.js';
import type { AsyncGateway } from '../gateway/runtime/async-gateway.js';
import { headerBuilder, sfString } from '../http/headers.js';

/**
 * What both protocols share: the gateway, the RateLimit headers built as the middleware builds them
 * (the file's `http` section: policyName, legacyHeaders, standardHeaders) and the file's choices for
 * a bad key or cost. The proxy decides nothing; this is the one place a decision is made.
 */
export class Decider {
  readonly policyName: string;
  readonly limitedStatus: number;
  readonly onInvalidKey: 'reject' | 'skip';
  readonly onInvalidCost: 'reject' | 'skip';
  private readonly build: (d: Decision, nowMs: number) => Record<string, string>;

  constructor(
    readonly gateway: AsyncGateway,
    http: HttpFileOptions = {},
    private readonly clock: () => number = Date.now,
  ) {
    const policy = gateway.options.policy;
    this.policyName = http.policyName ?? policy.name ?? 'default';
    this.build = headerBuilder(
      policy,
      sfString(this.policyName, 'http.policyName'),
      http.legacyHeaders ?? false,
      http.standardHeaders ?? true,
    );
    this.limitedStatus = http.statusCode ?? 429;
    this.onInvalidKey = http.onInvalidKey ?? 'reject';
    this.onInvalidCost = http.onInvalidCost ?? 'reject';
  }

  /** The gateway's decision for a checked key and cost (never rejects: the fail mode decides without the store). */
  decide(key: string, cost: number): Decision | Promise<Decision> {
    return this.gateway.admitNow(key, cost);
  }

  headers(d: Decision): Record<string, string> {
    return this.build(d, this.clock());
  }
}
