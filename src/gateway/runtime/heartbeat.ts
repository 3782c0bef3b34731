import type { AsyncStore } from '../../store/contract.js';
import { learnGateways, liveWithinMs, type ResolvedOptions } from '../options.js';
import { withTimeout } from './timeout.js';

/** What a heartbeat needs: the store, who this gateway is to it, and the options whose K it sets. */
export interface HeartbeatDeps {
  store: AsyncStore;
  incarnation: string;
  /** Its fleet.gateways (K) is what a heartbeat's count sets (see learnGateways). */
  options: ResolvedOptions;
  storeTimeoutMs: number;
  /** A heartbeat changed K. */
  gatewaysChanged: () => void;
}

/**
 * gateways 'auto': one heartbeat per sync round; the store's count of live gateways becomes K. A
 * failed one leaves K as it was: the fail mode covers a store that is away.
 */
export class Heartbeats {
  /** Heartbeats that failed or timed out (K kept its last value). */
  failures = 0;
  /** Store time of the first heartbeat's count (see learnGateways). */
  private firstCountAt = Number.NaN;

  constructor(private readonly d: HeartbeatDeps) {}

  /**
   * One heartbeat at decision time `now`; the last one (`leaving`) takes this gateway out of the
   * count at once. Settles (never rejects on a store failure) once it has set K or failed.
   */
  async beat(leaving: boolean, now: number): Promise<void> {
    const { store, options, storeTimeoutMs } = this.d;
    const heartbeat = store.heartbeat!.bind(store);
    const live = liveWithinMs(options, storeTimeoutMs);
    const beat = { gatewayId: this.d.incarnation, policy: options.policy, liveWithinMs: live, leaving };
    const r = await withTimeout(() => heartbeat(beat, now), storeTimeoutMs, undefined, 'renew');
    if (!r.ok) {
      this.failures++;
      return;
    }
    if (leaving) return;
    const at = r.value.now;
    if (Number.isNaN(this.firstCountAt)) this.firstCountAt = at;
    if (learnGateways(options, r.value.live, at - this.firstCountAt, live)) this.d.gatewaysChanged();
  }
}
