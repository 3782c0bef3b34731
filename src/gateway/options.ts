import {
  ConfigChecks,
  ConfigError,
  type DesignId,
  MAX_GATEWAYS,
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
  /**
   * K: gateways sharing the limit, 1 to 10,000 (MAX_GATEWAYS); or 'auto', the count of live gateways the store keeps (those that
   * synced within the last 3·Δ, see docs/autoscaling.md), read from every sync round's reply.
   */
  gateways: number | 'auto';
  /**
   * With `gateways: 'auto'`: K until the store has counted the fleet (the async runtime's first
   * decisions wait for that count, so this is used alone only if the store cannot be reached at
   * start), and the least K for one liveness window after this gateway's first count: in a fleet
   * started all at once, the first gateways to count have not seen the others yet. Set it to the
   * fleet's usual size if whole-fleet starts under load matter. @default 1
   */
  initialGateways?: number;
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
  /**
   * When a held key with nothing to push is read at a sync (issue 35,
   * docs/decisions/0013-reads-follow-requests.md). 'every-sync': at every sync, as always.
   * 'on-request': for the designs that can (Design.readsFollowRequests: the lazy synced ones), only
   * after a request decided for it here since its last read, or while its view is near L: a quiet key
   * costs the store at most one read per request. Turn it on for a long tail of quiet keys (a sidecar,
   * many keys); it changes those designs' decisions, and the simulator's run costs about twice the CPU.
   * @default 'every-sync'
   */
  reads?: ReadsMode;
}

/** When a quiet key is read (GatewayOptions.reads). */
export type ReadsMode = 'every-sync' | 'on-request';
export const READS_MODES = ['every-sync', 'on-request'] as const satisfies readonly ReadsMode[];

/** FleetParams whose K its gateway may set (`gateways: 'auto'`); the designs see them read-only. */
export interface LiveFleetParams extends FleetParams {
  gateways: number;
}

export interface ResolvedOptions {
  id: string;
  design: DesignId;
  policy: Policy;
  /** One object per gateway: with `gateways: 'auto'` its K follows the store's count. */
  fleet: LiveFleetParams;
  /** K is counted by the store (`gateways: 'auto'`); fleet.gateways starts at initialGateways. */
  autoGateways: boolean;
  /** With autoGateways: K before the first count, and its floor for one liveness window after it (see GatewayOptions). */
  initialGateways: number;
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
  'initialGateways',
  'syncMs',
  'leaseTtlMs',
  'horizonMs',
  'reads',
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
  const autoGateways = o.gateways === 'auto';
  const gateways = c.check(() => {
    if (!autoGateways) {
      if (o.initialGateways !== undefined) {
        throw new ConfigError('initialGateways', "is only for gateways: 'auto' (K is fixed here)");
      }
      return requireGateways(o.gateways);
    }
    return requireGatewayCount('initialGateways', o.initialGateways ?? 1);
  });
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
  const reads = c.check(() => requireReads(o.reads));
  c.done();
  // the effective rule: the design can, and the option asks for it
  const readsOnRequest = reads === 'on-request' && DESIGNS[design as DesignId].readsFollowRequests;
  // every check passed: none of these is undefined
  const fleet = {
    policy,
    gateways,
    syncMs,
    leaseTtlMs,
    horizonMs,
    readsOnRequest,
  } as ResolvedOptions['fleet'];
  const initialGateways = autoGateways ? (gateways as number) : 1;
  return {
    id: o.id,
    design: design as DesignId,
    policy: policy as Policy,
    fleet,
    autoGateways,
    initialGateways,
  };
}

function requireReads(v: unknown): ReadsMode {
  if (v === undefined || v === null) return 'every-sync';
  if (typeof v === 'string' && (READS_MODES as readonly string[]).includes(v)) return v as ReadsMode;
  throw new ConfigError('reads', `must be one of ${READS_MODES.join(', ')}; got ${JSON.stringify(v)}`);
}

function requireGateways(v: unknown): number {
  if (typeof v === 'number') return requireGatewayCount('gateways', v);
  throw new ConfigError('gateways', `must be a positive integer or 'auto', got ${JSON.stringify(v)}`);
}

/** A count of gateways: a positive integer, at most MAX_GATEWAYS. */
function requireGatewayCount(field: string, v: unknown): number {
  const k = requirePositiveInteger(field, v);
  if (k > MAX_GATEWAYS) {
    throw new ConfigError(field, `must be at most ${MAX_GATEWAYS} (gateways sharing one limit), got ${k}`);
  }
  return k;
}

/**
 * How long a gateway counts as live after its last heartbeat (`gateways: 'auto'`): 3·Δ, plus one
 * store timeout for a round that waited on a slow store. A healthy gateway beats every Δ; a crashed
 * one leaves the count this long after its last beat (a stopped one leaves at once).
 */
export function liveWithinMs(o: ResolvedOptions, storeTimeoutMs = 0): number {
  return LIVE_SYNCS * o.fleet.syncMs + storeTimeoutMs;
}

/**
 * Takes a heartbeat's count as this gateway's K (`gateways: 'auto'`); true if K changed. At least 1: a
 * count of 0 (its own beat aged out before the store counted) still leaves this gateway running; and
 * at least initialGateways while `sinceFirstMs` (store time since this gateway's first count) is
 * under the liveness window, when gateways started with it may not have beaten yet.
 */
export function learnGateways(
  o: ResolvedOptions,
  live: number,
  sinceFirstMs: number,
  liveMs: number,
): boolean {
  let k = Number.isSafeInteger(live) && live > 1 ? live : 1;
  if (sinceFirstMs < liveMs && k < o.initialGateways) k = o.initialGateways;
  if (k === o.fleet.gateways) return false;
  o.fleet.gateways = k;
  return true;
}

/** Sync intervals without a heartbeat after which a gateway no longer counts (see liveWithinMs). */
export const LIVE_SYNCS = 3;

/**
 * The most one request may cost: a request costing more can never be admitted, so the gateways
 * answer it at once, denied, without the store (see Decision.exceedsLimit). L; for a design bound by
 * shares (split), each gateway's own share ceil(L/K), the most it ever admits in a window (with
 * `gateways: 'auto'`, of the K in use now: the gateway recomputes it when K changes).
 */
export function maxRequestCost(o: ResolvedOptions): number {
  const { limit } = o.policy;
  return DESIGNS[o.design].bound === 'share' ? Math.ceil(limit / o.fleet.gateways) : limit;
}
