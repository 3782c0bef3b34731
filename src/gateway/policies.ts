import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Registry } from 'prom-client';
import { ConfigError, ConfigErrors, requirePolicyName } from '../config.js';
import {
  type AsyncGateway,
  type AsyncGatewayOptions,
  createAsyncGateway,
  type MetricsOptions,
  metricsHandler,
  type RuntimeStats,
} from './runtime/index.js';

/**
 * One named policy of a PolicyGateways: its limit and window, and any of the common options it sets
 * differently (a 1 s window needs a syncMs of at most 1 s, where an hourly one may sync every 5 s).
 */
export type PolicyOptions = Pick<AsyncGatewayOptions, 'limit' | 'windowMs'> &
  Partial<Omit<AsyncGatewayOptions, 'id' | 'store' | 'limit' | 'windowMs' | 'policyName'>>;

export interface PolicyGatewaysOptions
  extends Omit<AsyncGatewayOptions, 'limit' | 'windowMs' | 'windowKind' | 'policyName'> {
  /**
   * The named policies (`{ free: { limit: 10, windowMs: 60_000 }, pro: { limit: 1000, windowMs: 60_000 } }`).
   * A name is 1 to 64 of A–Z a–z 0–9 _ - . ~; it names the policy in the store (its counts are its
   * own, even beside another policy with the same numbers) and in the RateLimit headers.
   */
  policies: Readonly<Record<string, PolicyOptions>>;
  /** @default 'sliding' (each policy may set its own) */
  windowKind?: AsyncGatewayOptions['windowKind'];
}

/**
 * Several named policies on one store: one AsyncGateway per policy, with the id `<id>/<name>` (each
 * its own id, so duplicate-id detection and the store's per-gateway records keep them apart), the
 * `policyName` `<name>` (so each policy's counts are its own) and the same store connection. Start, stop, sync, stats and metrics cover them all; the HTTP middleware
 * picks one per request (`policy` option).
 */
export class PolicyGateways {
  /** The gateway of each policy, by name, in the order the policies were given. */
  readonly gateways: ReadonlyMap<string, AsyncGateway>;
  readonly id: string;

  constructor(opts: PolicyGatewaysOptions) {
    if (opts === null || typeof opts !== 'object') throw new ConfigError('options', 'must be an object');
    const { policies, ...common } = opts;
    if (typeof common.id !== 'string' || common.id.length === 0) {
      throw new ConfigError('id', `must be a non-empty string, got ${JSON.stringify(common.id)}`);
    }
    if (policies === null || typeof policies !== 'object' || Object.keys(policies).length === 0) {
      throw new ConfigError('policies', 'must be an object with at least one named policy');
    }
    const errors: ConfigError[] = [];
    if ((common as { policyName?: unknown }).policyName !== undefined) {
      errors.push(new ConfigError('policyName', 'comes from the policy names with a set of policies'));
    }
    const gateways = new Map<string, AsyncGateway>();
    for (const [name, p] of Object.entries(policies)) {
      try {
        requirePolicyName(`policies.${name}`, name);
        if (p === null || typeof p !== 'object') {
          throw new ConfigError(`policies.${name}`, 'must be an object with limit and windowMs');
        }
        if ((p as { policyName?: unknown }).policyName !== undefined) {
          throw new ConfigError(`policies.${name}.policyName`, 'is the policy name itself: leave it out');
        }
        gateways.set(
          name,
          createAsyncGateway({
            ...common,
            ...p,
            id: `${common.id}/${name}`,
            policyName: name,
          } as AsyncGatewayOptions),
        );
      } catch (e) {
        if (!(e instanceof ConfigError)) throw e;
        for (const one of e instanceof ConfigErrors ? e.errors : [e]) errors.push(inPolicy(name, one));
      }
    }
    if (errors.length === 1) throw errors[0];
    if (errors.length > 1) throw new ConfigErrors(errors);
    this.gateways = gateways;
    this.id = common.id;
  }

  get names(): string[] {
    return [...this.gateways.keys()];
  }

  /** The gateway of policy `name`; throws naming the known policies if there is none. */
  get(name: string): AsyncGateway {
    const g = this.gateways.get(name);
    if (g === undefined) throw unknownPolicy(name, this.gateways.keys());
    return g;
  }

  start(): void {
    for (const g of this.gateways.values()) g.start();
  }

  /** Stops every gateway (see AsyncGateway.stop); true if the store answered every last sync. */
  async stop(): Promise<boolean> {
    const r = await Promise.all([...this.gateways.values()].map((g) => g.stop()));
    return r.every(Boolean);
  }

  /** One sync of every gateway; true if the store answered them all. */
  async syncNow(): Promise<boolean> {
    const r = await Promise.all([...this.gateways.values()].map((g) => g.syncNow()));
    return r.every(Boolean);
  }

  /** Each policy's gateway's counters, by policy name. */
  stats(): Record<string, RuntimeStats> {
    const out: Record<string, RuntimeStats> = {};
    for (const [name, g] of this.gateways) out[name] = g.stats();
    return out;
  }

  /** Registers every gateway's metrics on one registry (labelled by gateway id, `<id>/<name>`). */
  registerMetrics(registry?: Registry, opts?: MetricsOptions): Registry {
    let r = registry;
    for (const g of this.gateways.values()) r = g.registerMetrics(r, opts);
    return r as Registry;
  }

  /** A node:http handler serving every gateway's metrics. */
  metricsHandler(registry?: Registry): (req: IncomingMessage, res: ServerResponse) => void {
    return metricsHandler(this.registerMetrics(registry));
  }
}

export function createPolicyGateways(opts: PolicyGatewaysOptions): PolicyGateways {
  return new PolicyGateways(opts);
}

/** A policy's own fields are named under it; a common option's error says which policy it was checked with. */
const POLICY_FIELDS = new Set(['limit', 'windowMs', 'windowKind']);

function inPolicy(name: string, e: ConfigError): ConfigError {
  if (e.field.startsWith('policies.')) return e;
  const message = e.message.slice(e.field.length + 2);
  if (POLICY_FIELDS.has(e.field)) return new ConfigError(`policies.${name}.${e.field}`, message);
  return new ConfigError(e.field, `${message} (with policies.${name})`);
}

/** The error for a policy name no gateway has: the server's code asked for it, so it is a fault, not a 4xx. */
export function unknownPolicy(name: unknown, known: Iterable<string>): Error {
  return new Error(
    `fleetlimit: no policy named ${JSON.stringify(name)}; the policies are ${[...known].map((n) => JSON.stringify(n)).join(', ')}`,
  );
}
