import type { EventEmitter } from 'node:events';
import type { AsyncStore } from '../../store/contract.js';
import type { ResolvedOptions } from '../options.js';
import type { AsyncGatewayEvents } from './async-gateway-events.js';
import type { LogVoids } from './log-voids.js';
import type { StoreClock } from './store-clock.js';
import type { StoreHealth } from './store-health.js';

/**
 * What every part that calls the store shares (the sync loop, the request path's calls): the store
 * and its timeout, who the gateway is to it, its clocks and liveness, the central-log calls to take
 * back, and where failures are reported. One interface so that the parts' deps name it once, and
 * buildGatewayParts builds it once.
 */
export interface StoreAccess {
  store: AsyncStore;
  storeTimeoutMs: number;
  /** Who the store knows this gateway as (see IdClaims, Incarnations). */
  incarnation: string;
  options: ResolvedOptions;
  /** The local clock: read when a call is sent and answered. */
  clock: () => number;
  /** Decision time on the store's clock, learnt from replies. */
  storeClock: StoreClock;
  health: StoreHealth;
  voids: LogVoids;
  events: EventEmitter<AsyncGatewayEvents>;
}
