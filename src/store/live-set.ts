import { type Heartbeat, MAX_LIVE_WITHIN_MS } from './contract.js';

/**
 * One policy's live gateways (`gateways: 'auto'`): each member's expiry, store time — its last beat
 * plus the liveWithinMs that beat carried. A beat records its member's expiry, forgets every member
 * whose own expiry has passed, and counts the rest: the same three steps as RedisStore's live.lua
 * (ZADD, ZREMRANGEBYSCORE, ZCARD).
 *
 * Each member is kept by its own window, never by the caller's (issue 32, item 3): pruning with the
 * beating gateway's window let one gateway with a short Δ (20 ms among gateways of 1 s) drop every
 * other member's beat, so the fleet counted K too small and admitted up to 1.84 × L per window.
 */
export class LiveSet {
  private readonly expiresAt = new Map<string, number>();

  beat(b: Heartbeat, now: number): number {
    requireHeartbeat(b);
    if (b.leaving === true) this.expiresAt.delete(b.gatewayId);
    else this.expiresAt.set(b.gatewayId, now + b.liveWithinMs);
    let live = 0;
    for (const [member, until] of this.expiresAt) {
      if (until < now) this.expiresAt.delete(member);
      else live++;
    }
    return live;
  }
}

/** A heartbeat's fields, checked before the store does any work for it (its work is bounded by them). */
export function requireHeartbeat(b: Heartbeat): void {
  if (typeof b.gatewayId !== 'string' || b.gatewayId.length === 0) {
    throw new RangeError('heartbeat: gatewayId must be a non-empty string');
  }
  const w = b.liveWithinMs;
  if (typeof w !== 'number' || !(w > 0) || w > MAX_LIVE_WITHIN_MS) {
    throw new RangeError(`heartbeat: liveWithinMs must be in (0, ${MAX_LIVE_WITHIN_MS}], got ${w}`);
  }
}
