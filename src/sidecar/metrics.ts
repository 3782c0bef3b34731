import { Counter, type Registry } from 'prom-client';

export type Protocol = 'http' | 'grpc';
/** allowed / limited: decided; invalid: bad input answered 400, 404 (no such policy) or INVALID_ARGUMENT; skipped: not limited (no rule, onInvalid* 'skip'). */
export type Outcome = 'allowed' | 'limited' | 'invalid' | 'skipped';

/** The sidecar's own counters, beside the gateway's metrics on one registry. */
export class SidecarMetrics {
  private readonly requests: Counter<'protocol' | 'outcome'>;

  constructor(registry: Registry) {
    this.requests = new Counter({
      name: 'fleetlimit_sidecar_requests_total',
      help: 'Proxy requests answered by the sidecar, by protocol (http: NGINX auth_request, grpc: Envoy RLS) and outcome (allowed, limited, invalid: bad input or no such policy, skipped: not limited)',
      labelNames: ['protocol', 'outcome'],
      registers: [registry],
    });
    for (const protocol of ['http', 'grpc'] as const)
      for (const outcome of ['allowed', 'limited', 'invalid', 'skipped'] as const)
        this.requests.inc({ protocol, outcome }, 0);
  }

  count(protocol: Protocol, outcome: Outcome): void {
    this.requests.inc({ protocol, outcome });
  }
}
