import { ConfigError, makePolicy } from '../config.js';
import type { Decision } from '../gateway/decision.js';
import type { AsyncGateway } from '../gateway/runtime/index.js';
import type { PeerLike } from './client-address.js';
import type { RateLimitGateway, RateLimitTarget } from './core.js';
import { type FastifyRateLimitOptions, type FastifyReplyLike, fastifyRateLimit } from './fastify.js';
import { routeName } from './fastify-rate-limit-store.js';
import { isOnePolicy, type OnePolicyOptions, onePolicyGateway, splitOnePolicy } from './one-policy.js';

type Hook<Req, Reply> = (request: Req, reply: Reply, done: (err?: Error) => void) => void;

/**
 * A route's `config.fleetlimit` (or `config.rateLimit`, @fastify/rate-limit's name, read when the
 * route has no `config.fleetlimit`): false (not limited), or the middleware options it changes for that
 * route (a `policy` of the set, `key`, `message`, …) and, with the plugin made from one policy's
 * options, a `limit` and `windowMs` of its own: the route then gets a gateway of its own (a policy
 * named after its method and URL, so its counts are its own, as @fastify/rate-limit keeps them).
 */
export type FleetlimitRouteOptions<Req, Reply> =
  | false
  | (FastifyRateLimitOptions<Req, Reply> & { limit?: number; windowMs?: number });

/** The plugin's own options, beside the middleware's. */
export interface FleetlimitPluginOwnOptions {
  /**
   * What limits: a gateway or a set of policies; or leave it out and give one policy's options
   * (`limit`, `windowMs`, `store`, `gateways`, `id`, … as OnePolicyOptions) to have it made. @default none
   */
  gateway?: RateLimitTarget;
  /**
   * Limit every route of the app (and of the plugins registered after it); false: only the routes
   * with a `config.fleetlimit` (or `config.rateLimit`) of their own, as @fastify/rate-limit's `global`. @default true
   */
  global?: boolean;
}

/** `app.register(fleetlimitPlugin, options)`'s options. */
export type FleetlimitPluginOptions<Req = PeerLike, Reply = FastifyReplyLike> = FleetlimitPluginOwnOptions &
  FastifyRateLimitOptions<Req & PeerLike, Reply> &
  Partial<OnePolicyOptions>;

interface RouteLike {
  method: string | string[];
  url: string;
  config?: { rateLimit?: unknown; fleetlimit?: unknown };
  onRequest?: unknown;
}

interface FastifyLike {
  addHook(name: 'onRoute', hook: (route: RouteLike) => void): unknown;
  addHook(name: 'onClose', hook: () => Promise<void>): unknown;
}

/**
 * A Fastify plugin, registered as @fastify/rate-limit is (`await app.register(fleetlimitPlugin, {
 * limit: 100, windowMs: 60_000, store, gateways: 3, id })`): an `onRequest` hook on every route
 * registered after it, in its own and its parent's scope (it is not encapsulated); a route's
 * `config.rateLimit` changes its options or turns it off (FleetlimitRouteOptions). The gateways it
 * makes are started, and stopped when the app closes; a gateway passed in is the caller's. Every
 * option error is a ConfigError naming the field, at registration (a route's: when the route is added).
 * Beside it, `fastifyRateLimit` stays the plain hook for `addHook` or one route's `onRequest`.
 */
export function fleetlimitPlugin<
  Req extends PeerLike = PeerLike,
  Reply extends FastifyReplyLike = FastifyReplyLike,
>(fastify: FastifyLike, options: FleetlimitPluginOptions<Req, Reply>, done: (err?: Error) => void): void {
  try {
    register(fastify, options ?? {});
  } catch (err) {
    done(err as Error);
    return;
  }
  done();
}
// the hooks apply to the scope it is registered in, as fastify-plugin's wrapping does
Object.assign(fleetlimitPlugin, {
  [Symbol.for('skip-override')]: true,
  [Symbol.for('fastify.display-name')]: 'fleetlimit',
});

function register<Req extends PeerLike, Reply extends FastifyReplyLike>(
  fastify: FastifyLike,
  options: FleetlimitPluginOptions<Req, Reply>,
): void {
  const { gateway: given, global = true, ...rest } = options;
  if (typeof global !== 'boolean')
    throw new ConfigError('global', `must be true or false, got ${JSON.stringify(global)}`);
  const made: AsyncGateway[] = [];
  let target: RateLimitTarget;
  let base: OnePolicyOptions | null = null;
  let mw: FastifyRateLimitOptions<Req, Reply>;
  if (given !== undefined) {
    if ('limit' in rest || 'windowMs' in rest || 'store' in rest) {
      throw new ConfigError(
        'gateway',
        'give a gateway, or one policy’s options (limit, windowMs, store, …), not both',
      );
    }
    target = given;
    mw = rest as FastifyRateLimitOptions<Req, Reply>;
  } else {
    if (!isOnePolicy(rest)) {
      throw new ConfigError(
        'gateway',
        'give a gateway, a set of policies, or one policy’s options (limit, windowMs, store, gateways, id)',
      );
    }
    const split = splitOnePolicy<FastifyRateLimitOptions<Req, Reply>>(
      rest as OnePolicyOptions & FastifyRateLimitOptions<Req, Reply>,
    );
    base = split.gateway;
    mw = split.middleware;
    const gw = onePolicyGateway(base);
    made.push(gw);
    target = gw;
  }
  let all: Hook<Req, Reply>;
  try {
    all = fastifyRateLimit<Req, Reply>(target, mw);
  } catch (err) {
    for (const g of made) void g.stop();
    throw err;
  }
  fastify.addHook('onClose', async () => {
    await Promise.all(made.map((g) => g.stop()));
  });
  fastify.addHook('onRoute', (route) => {
    // our own name first: a program that also loads @fastify/rate-limit (migrating, or for its types,
    // which claim config.rateLimit for its options) gives each plugin its own route options
    const field = route.config?.fleetlimit !== undefined ? 'config.fleetlimit' : 'config.rateLimit';
    const own = route.config?.fleetlimit !== undefined ? route.config.fleetlimit : route.config?.rateLimit;
    if (own === false) return;
    if (own === undefined || own === null) {
      if (global) addHook(route, all);
      return;
    }
    if (typeof own !== 'object') {
      throw new ConfigError(field, `must be false or an object of options, got ${JSON.stringify(own)}`);
    }
    const { limit, windowMs, ...routeMw } = own as { limit?: number; windowMs?: number };
    let routeTarget = target;
    if (limit !== undefined || windowMs !== undefined) {
      if (base === null) {
        throw new ConfigError(
          field,
          'a route’s own limit or windowMs needs the plugin made from one policy’s options (limit, windowMs, store, gateways, id); with a set of policies, name one (policy)',
        );
      }
      const name = routeName({ method: route.method, url: route.url }) as string;
      routeTarget = lazyGateway(
        {
          ...base,
          limit: limit ?? base.limit,
          windowMs: windowMs ?? base.windowMs,
          id: `${base.id}/${name}`,
          policyName: name,
        },
        made,
      );
    }
    addHook(route, fastifyRateLimit<Req, Reply>(routeTarget, { ...mw, ...routeMw }));
  });
}

function addHook(route: RouteLike, hook: unknown): void {
  const h = route.onRequest;
  route.onRequest = Array.isArray(h) ? [...h, hook] : typeof h === 'function' ? [h, hook] : [hook];
}

/**
 * A route's own gateway, made on its first request (Fastify adds a HEAD route beside each GET: one
 * never asked costs no timer); its policy is checked now, so a bad limit fails when the route is added.
 */
function lazyGateway(opts: OnePolicyOptions, made: AsyncGateway[]): RateLimitGateway {
  const policy = makePolicy(opts.limit, opts.windowMs, opts.windowKind ?? 'sliding', opts.policyName);
  let gw: AsyncGateway | null = null;
  return {
    options: { policy },
    // as the gateway will say (AsyncGateway.refunds): the store's, or split's own
    refunds:
      typeof (opts.store as { refundAdmits?: unknown } | undefined)?.refundAdmits === 'function' ||
      opts.design === 'split',
    admitNow(key: string, cost?: number): Decision | Promise<Decision> {
      if (gw === null) {
        gw = onePolicyGateway(opts);
        made.push(gw);
      }
      return gw.admitNow(key, cost);
    },
    // a refund follows an admit, so the gateway is made by then
    refund(key: string, decision: Decision, cost?: number): boolean {
      return gw === null ? false : gw.refund(key, decision, cost);
    },
  };
}
