import { type Heartbeat, MAX_LIVE_WITHIN_MS } from './contract.js';

/**
 * One policy's live gateways (`gateways: 'auto'`): each member's last beat, store time. A beat
 * records its member, forgets every member whose last beat is older than liveWithinMs, and counts
 * the rest: the same three steps as RedisStore's live.lua (ZADD, ZREMRANGEBYSCORE, ZCARD).
 */
export class LiveSet {
  private readonly lastBeat = new Map<string, number>();

  beat(b: Heartbeat, now: number): number {
    requireHeartbeat(b);
    if (b.leaving === true) this.lastBeat.delete(b.gatewayId);
    else this.lastBeat.set(b.gatewayId, now);
    const since = now - b.liveWithinMs;
    let live = 0;
    for (const [member, at] of this.lastBeat) {
      if (at < since) this.lastBeat.delete(member);
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
