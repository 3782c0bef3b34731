export { clientAddress, normalizeAddress, type PeerLike, TrustedProxies } from './client-address.js';
export {
  createRequestDecider,
  decideRequest,
  type HttpDecision,
  type InvalidCostAction,
  type InvalidKeyAction,
  type RateLimitGateway,
  type RateLimitHttpOptions,
  type RequestDecider,
} from './core.js';
export { type ExpressResponseLike, expressRateLimit } from './express.js';
export { type FastifyReplyLike, fastifyRateLimit } from './fastify.js';
export { type HeaderOptions, rateLimitHeaders } from './headers.js';
export { withRateLimit } from './node.js';
