export {
  AsyncGateway,
  type AsyncGatewayEvents,
  type AsyncGatewayOptions,
  createAsyncGateway,
  type DecisionCounts,
  type FailMode,
  type RuntimeStats,
  type StoreCallErrorEvent,
  type SyncErrorEvent,
  type SyncEvent,
} from './async-gateway.js';
export {
  type MetricsOptions,
  metricsHandler,
  registerGatewayMetrics,
  unregisterGatewayMetrics,
} from './metrics.js';
