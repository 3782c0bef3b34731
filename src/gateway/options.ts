import {
  ConfigError,
  type DesignId,
  makePolicy,
  type Policy,
  requireDesign,
  requirePositiveFinite,
  requirePositiveInteger,
} from '../config.js';
import type { FleetParams } from '../designs/key-limiter.js';

export interface GatewayOptions {
  /** This gateway's id; unique in the fleet (the store keys grants and sync sequence numbers by it). */
  id: string;
  design: DesignId;
  /** L: admits allowed per window per key. */
  limit: number;
  /** W: the window, in milliseconds. */
  windowMs: number;
  /** @default 'sliding' */
  windowKind?: 'sliding' | 'fixed';
  /** K: gateways sharing the limit. */
  gateways: number;
  /** Δ: the sync interval, in milliseconds; 0 < Δ <= W. */
  syncMs: number;
  /** @default max(3·Δ, 1000 ms) */
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

/** Validates every field; errors name the field and the bad value. */
export function resolveGatewayOptions(o: GatewayOptions): ResolvedOptions {
  if (o === null || typeof o !== 'object') throw new ConfigError('options', 'must be an object');
  if (typeof o.id !== 'string' || o.id.length === 0) {
    throw new ConfigError('id', `must be a non-empty string, got ${JSON.stringify(o.id)}`);
  }
  const design = requireDesign('design', o.design);
  const policy = makePolicy(o.limit, o.windowMs, o.windowKind ?? 'sliding');
  const gateways = requirePositiveInteger('gateways', o.gateways);
  const syncMs = requirePositiveFinite('syncMs', o.syncMs);
  if (syncMs > policy.windowMs) {
    throw new ConfigError('syncMs', `must not exceed windowMs (${policy.windowMs}), got ${syncMs}`);
  }
  const leaseTtlMs = requirePositiveFinite('leaseTtlMs', o.leaseTtlMs ?? Math.max(3 * syncMs, 1000));
  const horizonMs = requirePositiveFinite('horizonMs', o.horizonMs ?? Math.min(policy.windowMs, 4 * syncMs));
  return { id: o.id, design, policy, fleet: { policy, gateways, syncMs, leaseTtlMs, horizonMs } };
}
