export {
  addressKey,
  clientAddress,
  DEFAULT_IPV6_SUBNET,
  normalizeAddress,
  type PeerLike,
  TrustedProxies,
} from './client-address.js';
export {
  createRequestDecider,
  decideRequest,
  type HttpBadRequest,
  type HttpDecision,
  type HttpGoOn,
  type HttpLimited,
  type InvalidCostAction,
  type InvalidKeyAction,
  type LimitedResponseOptions,
  type RateLimitGateway,
  type RateLimitHttpOptions,
  type RateLimitPolicies,
  type RateLimitTarget,
  type RequestDecider,
  TOO_MANY_REQUESTS_BODY,
} from './core.js';
export { type ExpressRateLimitOptions, type ExpressResponseLike, expressRateLimit } from './express.js';
export {
  type ClientRateLimitInfo,
  type ExpressRateLimitInitOptions,
  FleetlimitStore,
  type FleetlimitStoreOptions,
} from './express-rate-limit-store.js';
export { type FastifyRateLimitOptions, type FastifyReplyLike, fastifyRateLimit } from './fastify.js';
export {
  type FleetlimitPluginOptions,
  type FleetlimitPluginOwnOptions,
  type FleetlimitRouteOptions,
  fleetlimitPlugin,
} from './fastify-plugin.js';
export {
  type FastifyRateLimitStoreLike,
  type FastifyRateLimitStoreParams,
  type FastifyRateLimitStoreResult,
  type FleetlimitFastifyStore,
  fleetlimitFastifyStore,
} from './fastify-rate-limit-store.js';
export { type HeaderOptions, rateLimitHeaders, type StandardHeaders } from './headers.js';
export { type NodeRateLimitOptions, withRateLimit } from './node.js';
export { type OnePolicyOptions, recommendedDesign } from './one-policy.js';
export { RateLimitInfo } from './rate-limit-info.js';
export type { CountingGateway } from './store-hits.js';
