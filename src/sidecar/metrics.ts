import { Counter, type Registry } from 'prom-client';

export type Protocol = 'http' | 'grpc';
/** allowed / limited: decided; invalid: bad input answered 400, 404 (no such policy) or INVALID_ARGUMENT; skipped: not limited (no rule, onInvalid* 'skip'). */
export type Outcome = 'allowed' | 'limited' | 'invalid' | 'skipped';

const PROTOCOLS: readonly Protocol[] = ['http', 'grpc'];
const OUTCOMES: readonly Outcome[] = ['allowed', 'limited', 'invalid', 'skipped'];

/** The sidecar's own counters, beside the gateway's metrics on one registry. */
export class SidecarMetrics {
  /**
   * Counts by protocol and outcome, in plain numbers: prom-client's inc hashes and validates its
   * labels at every call, a cost per request a proxy pays (issue 35), so the counter takes the
   * totals only when the registry is read.
   */
  private readonly counts = new Map<Protocol, Map<Outcome, number>>(
    PROTOCOLS.map((p) => [p, new Map(OUTCOMES.map((o) => [o, 0]))]),
  );

  constructor(registry: Registry) {
    const counts = this.counts;
    new Counter({
      name: 'fleetlimit_sidecar_requests_total',
      help: 'Proxy requests answered by the sidecar, by protocol (http: NGINX auth_request, grpc: Envoy RLS) and outcome (allowed, limited, invalid: bad input or no such policy, skipped: not limited)',
      labelNames: ['protocol', 'outcome'],
      registers: [registry],
      collect() {
        this.reset();
        for (const [protocol, byOutcome] of counts)
          for (const [outcome, n] of byOutcome) this.inc({ protocol, outcome }, n);
      },
    });
  }

  count(protocol: Protocol, outcome: Outcome): void {
    const byOutcome = this.counts.get(protocol) as Map<Outcome, number>;
    byOutcome.set(outcome, (byOutcome.get(outcome) as number) + 1);
  }
}
