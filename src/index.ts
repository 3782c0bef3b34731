export {
  ConfigError,
  ConfigErrors,
  DESIGN_IDS,
  type DesignId,
  KeyError,
  MAX_KEY_LENGTH,
  MAX_WINDOW_MS,
  MIN_SYNC_MS,
  makePolicy,
  POLICY_NAME,
  type Policy,
  type WindowKind,
} from './config.js';
export {
  type HttpFileOptions,
  type LoadedConfig,
  loadConfig,
  loadConfigFile,
} from './config-file.js';
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
export {
  type GatewayOptions,
  READS_MODES,
  type ReadsMode,
  type ResolvedOptions,
  resolveGatewayOptions,
} from './gateway/options.js';
export {
  createPolicyGateways,
  PolicyGateways,
  type PolicyGatewaysOptions,
  type PolicyOptions,
} from './gateway/policies.js';
export * from './gateway/runtime/index.js';
export { type AnyStore, asAsyncStore } from './store/async-adapter.js';
export type * from './store/contract.js';
export { MemoryStore } from './store/memory-store.js';
export { policyTag } from './store/policy-tag.js';
export { expiryOf } from './window/expiry.js';
