import { createKeyLimiter } from '../../src/designs/index.js';
import { ALLOW, asksStore, DENY, type KeyLimiter, logsAtStore } from '../../src/designs/key-limiter.js';
import {
  type GatewayOptions,
  type ResolvedOptions,
  resolveGatewayOptions,
} from '../../src/gateway/options.js';
import type { SyncEntry } from '../../src/store/contract.js';
import type { AnyStore } from './store-contract.js';

/**
 * A gateway over either store form, awaiting every store call: the same protocol as
 * src/gateway/gateway.ts (decide, then the design's request-path call on NEED_STORE; syncs push
 * and read every key held, dropping idle ones), minus headers. `log` records every store reply.
 */
export class AsyncDriverGateway {
  readonly options: ResolvedOptions;
  private readonly keys = new Map<string, KeyLimiter>();
  private seq = 0;
  readonly log: unknown[] = [];

  constructor(
    opts: GatewayOptions,
    private readonly store: AnyStore,
  ) {
    this.options = resolveGatewayOptions(opts);
  }

  async admit(key: string, now: number, cost = 1): Promise<boolean> {
    const { design, policy, fleet, id } = this.options;
    let lim = this.keys.get(key);
    if (lim === undefined) {
      lim = createKeyLimiter(design, fleet, now);
      if (design !== 'central-log') this.keys.set(key, lim);
    }
    const verdict = lim.decide(now, cost);
    if (verdict === ALLOW) return true;
    if (verdict === DENY) return false;
    if (design === 'central-log' && logsAtStore(lim)) {
      const r = await this.store.logAdmit({ key, policy, cost }, now);
      this.log.push(r);
      return lim.onLogReply(r, now, cost);
    }
    if (!asksStore(lim)) throw new Error(`${design}: NEED_STORE without a request path`);
    const r = await this.store.ask(
      { gatewayId: id, key, policy, leaseTtlMs: fleet.leaseTtlMs, ask: lim.askSize(cost) },
      now,
    );
    this.log.push(r);
    return lim.onAskReply(r, now, cost);
  }

  async sync(now: number): Promise<void> {
    const entries: SyncEntry[] = [];
    const owners: KeyLimiter[] = [];
    for (const [key, lim] of this.keys) {
      const e = lim.syncEntry(key, now);
      if (e === null) {
        if (lim.isIdle(now)) this.keys.delete(key);
        continue;
      }
      entries.push(e);
      owners.push(lim);
    }
    const { policy, fleet, id } = this.options;
    const result = await this.store.sync(
      {
        gatewayId: id,
        seq: ++this.seq,
        policy,
        leaseTtlMs: fleet.leaseTtlMs,
        horizonMs: fleet.horizonMs,
        entries,
      },
      now,
    );
    this.log.push(result);
    for (let i = 0; i < owners.length; i++) {
      owners[i].applySync(result.replies[i], now);
      if (owners[i].isIdle(now)) this.keys.delete(entries[i].key);
    }
  }
}

export interface DriverEvent {
  t: number;
  gw: number;
  key: string;
  kind: 'req' | 'sync';
  cost?: number;
}

/** Runs the events in order through one fleet of gateways on `store`; returns every decision and reply. */
export async function driveFleet(
  base: Omit<GatewayOptions, 'id'> & { gateways: number },
  store: AnyStore,
  events: DriverEvent[],
): Promise<{ decisions: boolean[]; replies: unknown[][] }> {
  const gws = Array.from(
    { length: base.gateways },
    (_, i) => new AsyncDriverGateway({ ...base, id: `gw-${i}` }, store),
  );
  const decisions: boolean[] = [];
  for (const e of events) {
    const gw = gws[e.gw];
    if (e.kind === 'sync') await gw.sync(e.t);
    else decisions.push(await gw.admit(e.key, e.t, e.cost ?? 1));
  }
  return { decisions, replies: gws.map((g) => g.log) };
}
