import { isSmallLimit } from '../advise/small-limit.js';
import { ConfigError, type DesignId } from '../config.js';
import { ASYNC_GATEWAY_FIELDS } from '../gateway/runtime/async-options.js';
import { type AsyncGateway, type AsyncGatewayOptions, createAsyncGateway } from '../gateway/runtime/index.js';

/**
 * One policy set directly on a middleware or store, the gateway made from it: every gateway option
 * (createAsyncGateway), with `design` and `syncMs` chosen for you when left out.
 */
export type OnePolicyOptions = Omit<AsyncGatewayOptions, 'design' | 'syncMs'> & {
  /**
   * @default 'leases-ask' for a small limit (L < 5·K: 5 logins a minute over 3 gateways), where no
   * design that decides locally holds L; else 'adaptive-early' (README, "Choose a design and Δ")
   */
  design?: DesignId;
  /** Δ, in ms. @default min(1,000, windowMs) */
  syncMs?: number;
};

/** The design the README recommends for L over K: an exact one below 5·K, else adaptive-early. */
export function recommendedDesign(limit: number, gateways: number | 'auto', initial = 1): DesignId {
  const k = gateways === 'auto' ? initial : gateways;
  return typeof limit === 'number' && typeof k === 'number' && isSmallLimit(limit, k)
    ? 'leases-ask'
    : 'adaptive-early';
}

/** Makes and starts the gateway of one policy; a bad option throws a ConfigError naming it. */
export function onePolicyGateway(opts: OnePolicyOptions): AsyncGateway {
  if (opts === null || typeof opts !== 'object') throw new ConfigError('options', 'must be an object');
  const design = opts.design ?? recommendedDesign(opts.limit, opts.gateways, opts.initialGateways);
  const syncMs =
    opts.syncMs ?? (typeof opts.windowMs === 'number' && opts.windowMs < 1_000 ? opts.windowMs : 1_000);
  const gw = createAsyncGateway({ ...opts, design, syncMs });
  gw.start();
  return gw;
}

/** Whether a middleware's first argument is one policy's options (not a gateway or a set of policies). */
export function isOnePolicy(v: unknown): v is OnePolicyOptions {
  return (
    v !== null &&
    typeof v === 'object' &&
    typeof (v as { admitNow?: unknown }).admitNow !== 'function' &&
    !((v as { gateways?: unknown }).gateways instanceof Map) &&
    'limit' in v
  );
}

/**
 * One object holding a policy's gateway options and a middleware's own options, split in two. The
 * names both take (`policyName`, `clock`) go to both: the gateway's policy name is the headers' name
 * too, and the clock is the local one either way.
 */
export function splitOnePolicy<M extends object>(
  all: OnePolicyOptions & M,
): { gateway: OnePolicyOptions; middleware: M } {
  const gateway: Record<string, unknown> = {};
  const middleware: Record<string, unknown> = {};
  for (const [name, v] of Object.entries(all)) {
    if (ASYNC_GATEWAY_FIELDS.includes(name)) gateway[name] = v;
    if (!ASYNC_GATEWAY_FIELDS.includes(name) || SHARED.has(name)) middleware[name] = v;
  }
  return { gateway: gateway as OnePolicyOptions, middleware: middleware as M };
}

const SHARED = new Set(['policyName', 'clock']);

/**
 * `make(gw)` with the gateway attached as its `gateway`; if `make` throws (a bad middleware option),
 * the gateway just made is stopped first, so no timer is left behind.
 */
export function withGateway<T extends object>(
  gw: AsyncGateway,
  make: (gw: AsyncGateway) => T,
): T & { gateway: AsyncGateway } {
  try {
    return Object.assign(make(gw), { gateway: gw });
  } catch (err) {
    void gw.stop();
    throw err;
  }
}
