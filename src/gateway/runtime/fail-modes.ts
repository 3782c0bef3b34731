import { ALLOW, asksStore, type KeyLimiter } from '../../designs/key-limiter.js';
import { type Decision, resetMsOf } from '../decision.js';
import type { ResolvedOptions } from '../options.js';
import type { FailMode } from './async-options.js';
import type { KeyTable } from './key-table.js';

/** What a fail mode decides with (see degradedDecision); the gateway builds it once. */
export interface FailModeContext {
  readonly failMode: FailMode;
  /** Design.grants: `local` spends the key's granted slots rather than a share of its own. */
  readonly grants: boolean;
  /** The policy and the fleet (K read at each decision: gateways 'auto' changes it). */
  readonly options: ResolvedOptions;
  readonly table: KeyTable;
  /** The decision of the key's limiter, not counted yet. */
  fromLimiter(lim: KeyLimiter, allowed: boolean, now: number, cost: number): Decision;
  /** The key's limiter admitted `cost` the store has not confirmed yet. */
  spent(cost: number): void;
  /** Until the next sync, the first instant a rejection that waits on the store can change. */
  untilNextSync(now: number): number;
}

/**
 * A decision made without the store, by the fail mode: `closed` rejects; `local` spends granted slots
 * (a design that grants) or admits up to ceil(L/K) per window on its own outage admits; `open` admits,
 * recording up to L per window to push when the store is back. null: the key cap has no room for the
 * key (the gateway answers with its noRoom). `counted`: the request already went through its limiter's
 * decide (it waited on another request's ask), so the limiter must not count it again. Apart from the
 * gateway: the three modes are a policy of their own, and the request path only asks which one holds.
 */
export function degradedDecision(
  c: FailModeContext,
  key: string,
  now: number,
  cost: number,
  counted: boolean,
): Decision | null {
  if (c.failMode === 'closed') {
    return {
      allowed: false,
      remaining: 0,
      resetMs: 0,
      retryAfterMs: c.untilNextSync(now),
      degraded: true,
      at: now,
    };
  }
  if (c.failMode !== 'local' || !c.grants) return fromOutageAdmits(c, key, now, cost);
  // `local` for a design that grants: spend granted slots only, the store may already have handed
  // anything else to another gateway
  const lim = c.table.limiterOf(key, now);
  if (lim === null) return null;
  // a counted request came by an ask (AsksStore)
  const v = counted && asksStore(lim) ? lim.decideAgain(now, cost) : lim.decide(now, cost);
  const allowed = v === ALLOW;
  if (allowed) c.spent(cost);
  return { ...c.fromLimiter(lim, allowed, now, cost), degraded: true };
}

/** `open`, and `local` for the other designs: the key's own outage admits (Fallback) are its window. */
function fromOutageAdmits(c: FailModeContext, key: string, now: number, cost: number): Decision | null {
  const { policy, fleet } = c.options;
  const fb = c.table.outageOf(key, now);
  if (fb === null) {
    // open admits regardless; what it cannot record is not pushed (open has no bound anyway)
    if (c.failMode === 'open') return { allowed: true, remaining: 0, resetMs: 0, degraded: true, at: now };
    return null;
  }
  const share = policy.limit / fleet.gateways;
  if (c.failMode === 'open') {
    // beyond L per window the store's count would say nothing more: keep the queue bounded
    fb.record(now, cost, policy.limit);
    const resetMs = resetMsOf(fb.resetAt(now), now);
    const remaining = Math.max(0, policy.limit - fb.live(now));
    return { allowed: true, remaining, resetMs, degraded: true, at: now };
  }
  const live = fb.live(now);
  const allowed = live + cost - 1 < share;
  if (allowed) fb.record(now, cost, Number.POSITIVE_INFINITY);
  const resetMs = resetMsOf(fb.resetAt(now), now);
  const d: Decision = {
    allowed,
    remaining: Math.max(0, Math.ceil(share - fb.live(now))),
    resetMs,
    degraded: true,
    at: now,
  };
  if (!allowed) {
    // its own outage admits are all it counts by: the instant enough of them age out for this cost
    // (one costing more than the share waits for the store, back at a sync at the soonest)
    const at = fb.admitsAt(now, cost, share);
    d.retryAfterMs = Number.isFinite(at) ? Math.max(1, Math.ceil(at - now)) : c.untilNextSync(now);
  }
  return d;
}
