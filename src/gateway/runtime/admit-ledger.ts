import type { Decision } from '../decision.js';

/** One key's admits not taken back yet (oldest first, with their costs) and its limited requests' instants. */
interface Held {
  admits: Decision[];
  costs: number[];
  limited: number[];
}

/**
 * A gateway's recent admits per key, kept so that a refund naming only its key (express-rate-limit's
 * `decrement`, Envoy's `is_negative_hits`) can take back the key's oldest admits: that frees a slot
 * for no longer than the request's own admit would have held it. Admits of the fail mode are not
 * kept (they counted nothing a refund could take back). What left the window goes; at most `maxKeys`
 * keys are held (a flood of keys within one window drops the oldest, and their refunds with them:
 * erring towards counting).
 */
export class AdmitLedger {
  readonly #held = new Map<string, Held>();

  constructor(
    private readonly windowMs: number,
    private readonly maxKeys = 100_000,
  ) {}

  /** Keys held now. */
  get size(): number {
    return this.#held.size;
  }

  /** Keeps an admit of `cost` (a rejection or a fail-mode admit keeps nothing). */
  keepAdmit(key: string, d: Decision, cost: number, now: number): void {
    if (!d.allowed || d.degraded === true) return;
    const h = this.#entry(key, now);
    h.admits.push(d);
    h.costs.push(cost);
  }

  /** Keeps the instant of a limited request (express-rate-limit decrements those under skipFailedRequests). */
  keepLimited(key: string, now: number): void {
    this.#entry(key, now).limited.push(now);
  }

  /** Matches the key's oldest limited request of the window, if any (it took nothing: nothing to give back). */
  takeLimited(key: string, now: number): boolean {
    const h = this.#aged(key, now);
    if (h === undefined || h.limited.length === 0) return false;
    h.limited.shift();
    this.#dropIfEmpty(key, h);
    return true;
  }

  /**
   * Takes back up to `hits` of the key's admits, oldest first, through `refund(decision, cost)`: each
   * admit whole while its cost fits, then part of the next (the rest of it stays counted). Returns the
   * hits taken back (0 when the key holds no admit of the window: a refund is floored at nothing).
   */
  takeBack(key: string, hits: number, now: number, refund: (d: Decision, cost: number) => void): number {
    const h = this.#aged(key, now);
    if (h === undefined) return 0;
    let left = hits;
    while (left > 0 && h.admits.length > 0) {
      const d = h.admits.shift() as Decision;
      const cost = h.costs.shift() as number;
      const take = Math.min(cost, left);
      refund(d, take);
      left -= take;
    }
    this.#dropIfEmpty(key, h);
    return hits - left;
  }

  /** Forgets the key (a reset took its admits). */
  forget(key: string): void {
    this.#held.delete(key);
  }

  #aged(key: string, now: number): Held | undefined {
    const h = this.#held.get(key);
    if (h !== undefined) this.#age(h, now);
    return h;
  }

  #entry(key: string, now: number): Held {
    let h = this.#held.get(key);
    if (h === undefined) {
      if (this.#held.size >= this.maxKeys) this.#sweep(now);
      h = { admits: [], costs: [], limited: [] };
      this.#held.set(key, h);
    } else this.#age(h, now);
    return h;
  }

  #dropIfEmpty(key: string, h: Held): void {
    if (h.admits.length === 0 && h.limited.length === 0) this.#held.delete(key);
  }

  /** Drops what left the window (a refund then has nothing to take back). */
  #age(h: Held, now: number): void {
    const w = this.windowMs;
    let i = 0;
    while (i < h.admits.length && (h.admits[i].at ?? now) + w <= now) i++;
    if (i > 0) {
      h.admits.splice(0, i);
      h.costs.splice(0, i);
    }
    let j = 0;
    while (j < h.limited.length && h.limited[j] + w <= now) j++;
    if (j > 0) h.limited.splice(0, j);
  }

  /**
   * Keeps the map bounded: keys with nothing left in the window go, then the oldest down to 90 % of
   * maxKeys, so that a full ledger of live keys sweeps once per tenth of maxKeys new keys, not per key.
   */
  #sweep(now: number): void {
    for (const [key, h] of this.#held) {
      this.#age(h, now);
      this.#dropIfEmpty(key, h);
    }
    const keep = Math.floor(this.maxKeys * 0.9);
    for (const key of this.#held.keys()) {
      if (this.#held.size <= keep) break;
      this.#held.delete(key);
    }
  }
}
