import {
  ConfigChecks,
  ConfigError,
  type DesignId,
  MIN_SYNC_MS,
  makePolicy,
  type Policy,
  requireDesign,
  requirePolicyName,
  requirePositiveFinite,
  requirePositiveInteger,
} from '../config.js';
import { DESIGNS } from '../designs/index.js';
import type { FleetParams } from '../designs/key-limiter.js';

export interface GatewayOptions {
  /** This gateway's id; unique in the fleet (the store keys grants and sync sequence numbers by it). */
  id: string;
  design: DesignId;
  /** L: admits allowed per window per key. */
  limit: number;
  /** W: the window, in milliseconds; at most 2^31 − 1 (MAX_WINDOW_MS, 24.8 days). */
  windowMs: number;
  /** @default 'sliding' */
  windowKind?: 'sliding' | 'fixed';
  /**
   * The policy's name (1 to 64 of A–Z a–z 0–9 _ - . ~): part of its identity in the store, so its
   * counts are its own even beside another policy with the same limit and window on the same store,
   * and its name in the RateLimit headers. Gateways of one fleet give the same name (or none). A
   * set of policies (createPolicyGateways) names each gateway after its policy. @default none
   */
  policyName?: string;
  /** K: gateways sharing the limit. */
  gateways: number;
  /** Δ: the sync interval, in milliseconds; 1 <= Δ <= W. */
  syncMs: number;
  /**
   * Lease designs: how long a grant lasts without a sync that renews it. More than Δ (the async
   * runtime: more than Δ + min(storeTimeoutMs, Δ)), or grants lapse before the next sync renews them.
   * @default max(3·Δ, 1000 ms)
   */
  leaseTtlMs?: number;
  /**
   * How far ahead sync replies list expiries. The async runtime lists further when its syncs take
   * longer (twice its longest recent sync cycle, up to W), never less than this. @default min(W, 4·Δ)
   */
  horizonMs?: number;
}

export interface ResolvedOptions {
  id: string;
  design: DesignId;
  policy: Policy;
  fleet: FleetParams;
}

/** Every field of GatewayOptions (the async runtime refuses any other name). */
export const GATEWAY_OPTION_FIELDS = [
  'id',
  'design',
  'limit',
  'windowMs',
  'windowKind',
  'policyName',
  'gateways',
  'syncMs',
  'leaseTtlMs',
  'horizonMs',
] as const satisfies readonly (keyof GatewayOptions)[];

/**
 * Validates every field; errors name the field and the bad value, and every bad field is reported
 * (ConfigErrors). A relation is checked once the fields it relates are valid. `storeTimeoutMs`: the
 * async runtime's, for the relations a round trip enters (0: a store that answers at once).
 */
export function resolveGatewayOptions(o: GatewayOptions, storeTimeoutMs = 0): ResolvedOptions {
  if (o === null || typeof o !== 'object') throw new ConfigError('options', 'must be an object');
  const c = new ConfigChecks();
  c.check(() => {
    if (typeof o.id !== 'string' || o.id.length === 0) {
      throw new ConfigError('id', `must be a non-empty string, got ${JSON.stringify(o.id)}`);
    }
  });
  const design = c.check(() => requireDesign('design', o.design));
  const name = c.check(() =>
    o.policyName === undefined ? undefined : requirePolicyName('policyName', o.policyName),
  );
  const policy = c.check(() => makePolicy(o.limit, o.windowMs, o.windowKind ?? 'sliding', name));
  const gateways = c.check(() => requirePositiveInteger('gateways', o.gateways));
  const syncMs = c.check(() => {
    const d = requirePositiveFinite('syncMs', o.syncMs);
    if (d < MIN_SYNC_MS) {
      throw new ConfigError('syncMs', `must be at least ${MIN_SYNC_MS} ms (timers count whole ms), got ${d}`);
    }
    return d;
  });
  c.check(() => {
    if (syncMs !== undefined && policy !== undefined && syncMs > policy.windowMs) {
      throw new ConfigError('syncMs', `must not exceed windowMs (${policy.windowMs}), got ${syncMs}`);
    }
  });
  const leaseTtlMs = c.check(() => {
    const ttl = requirePositiveFinite('leaseTtlMs', o.leaseTtlMs ?? Math.max(3 * (syncMs ?? 0), 1000));
    if (syncMs === undefined || design === undefined || !DESIGNS[design].grants) return ttl;
    // A grant must outlive the wait for the sync that renews it: Δ, plus that sync's round trip up
    // to storeTimeoutMs. Only up to Δ of it: one sync is in flight at a time, so a store slower than
    // Δ makes the runtime skip ticks and renew late whatever the TTL. Shorter, grants lapse before
    // every renewal and the gateway rejects meanwhile (50 ms with Δ = 1 s admitted almost nothing).
    const need = syncMs + Math.min(storeTimeoutMs, syncMs);
    if (ttl <= need) {
      const rel = storeTimeoutMs > 0 ? 'syncMs + min(storeTimeoutMs, syncMs)' : 'syncMs';
      throw new ConfigError(
        'leaseTtlMs',
        `must be more than ${rel} (${need}): a grant lapses before the sync that renews it; got ${ttl}`,
      );
    }
    return ttl;
  });
  const horizonMs = c.check(() =>
    requirePositiveFinite('horizonMs', o.horizonMs ?? Math.min(policy?.windowMs ?? 1, 4 * (syncMs ?? 1))),
  );
  c.done();
  // every check passed: none of these is undefined
  const fleet = { policy, gateways, syncMs, leaseTtlMs, horizonMs } as ResolvedOptions['fleet'];
  return { id: o.id, design: design as DesignId, policy: policy as Policy, fleet };
}

/**
 * The most one request may cost: a request costing more can never be admitted, so the gateways
 * answer it at once, denied, without the store (see Decision.exceedsLimit). L; for a design bound by
 * shares (split), each gateway's own share ceil(L/K), the most it ever admits in a window.
 */
export function maxRequestCost(o: ResolvedOptions): number {
  const { limit } = o.policy;
  return DESIGNS[o.design].bound === 'share' ? Math.ceil(limit / o.fleet.gateways) : limit;
}
