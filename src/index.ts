export {
  ConfigError,
  DESIGN_IDS,
  type DesignId,
  KeyError,
  MAX_KEY_LENGTH,
  makePolicy,
  type Policy,
  type WindowKind,
} from './config.js';
export { createKeyLimiter, decidesLocally } from './designs/index.js';
export {
  ALLOW,
  DENY,
  type FleetParams,
  type KeyLimiter,
  NEED_STORE,
  type Verdict,
} from './designs/key-limiter.js';
export type { Decision } from './gateway/decision.js';
export { createGateway, Gateway, type SyncStats } from './gateway/gateway.js';
export { type GatewayOptions, type ResolvedOptions, resolveGatewayOptions } from './gateway/options.js';
export * from './gateway/runtime/index.js';
export type * from './store/contract.js';
export { type AnyStore, asAsyncStore } from './store/async-adapter.js';
export { MemoryStore } from './store/memory-store.js';
export { expiryOf } from './window/expiry.js';
