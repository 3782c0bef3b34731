import type { Policy } from '../../config.js';
import type { KeyLimiter } from '../../designs/key-limiter.js';
import { LruMap } from '../../util/lru-map.js';
import { Slicer } from '../../util/slicer.js';
import { Fallback } from './fallback.js';

/** What the key table is told of the gateway around it. */
export interface KeyTableOptions {
  /** Most keys held (limiters + outage records): AsyncGatewayOptions.maxKeys. */
  maxKeys: number;
  policy: Policy;
  /** The design keeps state between requests (central-log does not: the store has it all). */
  holdsKeys: boolean;
  /** A new key's state machine at `now`. */
  create: (now: number) => KeyLimiter;
  /** A key that must not be evicted though its admits are confirmed (its ask is out). */
  busy: (key: string) => boolean;
  /** Called when the cap is full of keys with unconfirmed admits: a sync would free some. */
  onFull: () => void;
}

/**
 * The keys a gateway holds state for: each key's state machine (limiter) and its outage record
 * (Fallback), under a cap of `maxKeys` together, so a flood of distinct keys cannot exhaust memory.
 * Least recently used first; at the cap idle state goes first, then keys whose admits the store
 * has. Time is passed in.
 */
export class KeyTable {
  /** Least recently used first (the key cap drops those first). */
  private readonly limiters = new LruMap<KeyLimiter>();
  private readonly fallbacks = new Map<string, Fallback>();
  /** At the key cap with nothing to drop; cleared when a sync is answered (or a sweep drops some). */
  private isFull = false;
  /** A walk is under way across slices: keys are not reordered meanwhile (see walk). */
  private walking = false;
  /** Keys dropped to stay under maxKeys (idle ones not included). */
  evictions = 0;
  private readonly maxKeys: number;
  private readonly policy: Policy;
  private readonly holdsKeys: boolean;
  private readonly create: (now: number) => KeyLimiter;
  private readonly busy: (key: string) => boolean;
  private readonly onFull: () => void;

  constructor(o: KeyTableOptions) {
    this.maxKeys = o.maxKeys;
    this.policy = o.policy;
    this.holdsKeys = o.holdsKeys;
    this.create = o.create;
    this.busy = o.busy;
    this.onFull = o.onFull;
  }

  /** Keys with a limiter held. */
  get size(): number {
    return this.limiters.size;
  }

  /** Outage records held. */
  get outageCount(): number {
    return this.fallbacks.size;
  }

  /** At the key cap with nothing to drop: new keys are refused until a sync is answered. */
  get full(): boolean {
    return this.isFull;
  }

  /** The key's limiter, if held, without counting it as a use. */
  get(key: string): KeyLimiter | undefined {
    return this.limiters.get(key);
  }

  /** The key has a limiter held. */
  has(key: string): boolean {
    return this.limiters.has(key);
  }

  /** The key's outage record, if held. */
  outage(key: string): Fallback | undefined {
    return this.fallbacks.get(key);
  }

  /** The key has an outage record held. */
  hasOutage(key: string): boolean {
    return this.fallbacks.has(key);
  }

  /** The held keys with a limiter, least recently used first (tests and tools). */
  keys(): string[] {
    const out: string[] = [];
    for (const [k] of this.limiters) out.push(k);
    return out;
  }

  /**
   * Calls `visit` for every held limiter, least recently used first, in slices (Slicer), so a large
   * table never holds the event loop. Requests decided between slices are safe: keys are not
   * reordered meanwhile (a key used between slices would move behind the walk and be met twice), and
   * a new key joins the walk at the end. `visit` may drop the key it is at (dropIdle).
   */
  async walk(visit: (key: string, lim: KeyLimiter) => void, slicer = new Slicer()): Promise<void> {
    this.walking = true;
    try {
      for (const [key, lim] of this.limiters) {
        if (slicer.due()) await slicer.pause();
        visit(key, lim);
      }
    } finally {
      this.walking = false;
    }
  }

  /** Calls `visit` for every outage record, in slices; `visit` may drop the one it is at (dropIdleOutage). */
  async walkOutages(visit: (key: string, fb: Fallback) => void, slicer = new Slicer()): Promise<void> {
    for (const [key, fb] of this.fallbacks) {
      if (slicer.due()) await slicer.pause();
      visit(key, fb);
    }
  }

  /** A sync was answered: the admits it confirmed make keys droppable again, so new keys are tried anew. */
  syncAnswered(): void {
    this.isFull = false;
  }

  /** The key's state machine; null when the key cap leaves no room for a new key. */
  limiterOf(key: string, now: number): KeyLimiter | null {
    // least recently used first: a key used again moves to the end of the order — but not while a
    // walk is under way across slices (a sync's batch), which would meet it twice
    let lim = this.walking ? this.limiters.get(key) : this.limiters.use(key);
    if (lim !== undefined) return lim;
    // a design that holds no keys (central-log) keeps nothing between requests: the store has it all
    if (!this.holdsKeys) return this.create(now);
    if (!this.makeRoom(now)) return null;
    lim = this.create(now);
    this.limiters.set(key, lim);
    return lim;
  }

  /** The key has outage admits the store has not confirmed: it stays on the fail mode until it has. */
  hasOutageAdmits(key: string): boolean {
    const fb = this.fallbacks.size === 0 ? undefined : this.fallbacks.get(key);
    return fb !== undefined && fb.unconfirmed > 0;
  }

  /** The key's outage record, new if need be; null when the key cap leaves no room for a new key. */
  outageOf(key: string, now: number): Fallback | null {
    let fb = this.fallbacks.get(key);
    if (fb !== undefined) return fb;
    // a key already held (a real user's) always gets its outage record; only new keys need room
    if (!this.limiters.has(key) && !this.makeRoom(now)) return null;
    fb = new Fallback(this.policy);
    this.fallbacks.set(key, fb);
    return fb;
  }

  /**
   * Room for one more key under maxKeys, made on the request path, so its work is bounded: it looks
   * at the least recently used eighth of the cap only (a round's cost is paid once per cap/8 new keys,
   * and never scans the whole table in one request). Idle state there goes first, then the keys whose
   * admits the store has, down to 7/8 of the cap. Keys holding unconfirmed admits are never dropped:
   * they would be lost.
   */
  makeRoom(now: number): boolean {
    const held = () => this.limiters.size + this.fallbacks.size;
    if (held() < this.maxKeys) return true;
    if (this.isFull) return false;
    const look = Math.max(64, Math.ceil(this.maxKeys / 8));
    const target = Math.floor((this.maxKeys * 7) / 8);
    let seen = 0;
    for (const [k, lim] of this.limiters) {
      if (++seen > look) break;
      if (lim.isIdle(now)) this.limiters.delete(k);
    }
    seen = 0;
    for (const [k, fb] of this.fallbacks) {
      if (++seen > look) break;
      if (fb.isIdle(now)) this.fallbacks.delete(k);
    }
    seen = 0;
    for (const [k, lim] of this.limiters) {
      if (held() <= target || ++seen > look) break;
      // a key whose ask is out would spend the grant on a dropped limiter, never pushing the admit
      if (lim.unsyncedAdmits() === 0 && !this.fallbacks.has(k) && !this.busy(k)) {
        this.limiters.delete(k);
        this.evictions++;
      }
    }
    if (held() < this.maxKeys) return true;
    this.isFull = true;
    // push what the held keys have, so they can go
    this.onFull();
    return false;
  }

  /** Drops the key's limiter, found with nothing left (see key-steps), if it is still `lim`. */
  dropIdle(key: string, lim: KeyLimiter): void {
    if (this.limiters.get(key) === lim) this.limiters.delete(key);
  }

  /** Drops the key's outage record if it is still `fb` and holds nothing at `now`. */
  dropIdleOutage(key: string, fb: Fallback, now: number): void {
    if (fb.isIdle(now) && this.fallbacks.get(key) === fb) this.fallbacks.delete(key);
  }

  /** Outage admits recorded and not confirmed by the store yet. */
  unconfirmedOutageAdmits(): number {
    let n = 0;
    for (const fb of this.fallbacks.values()) n += fb.unconfirmed;
    return n;
  }

  /**
   * Drops idle state, in slices. While the store is away no batch is built, and building one is what
   * normally drops idle keys; without this, a long outage with many distinct keys would hold every
   * key it ever saw.
   */
  async sweep(now: number): Promise<void> {
    const before = this.limiters.size + this.fallbacks.size;
    const slicer = new Slicer();
    for (const [key, lim] of this.limiters) {
      if (lim.isIdle(now)) this.limiters.delete(key);
      if (slicer.due()) await slicer.pause();
    }
    for (const [key, fb] of this.fallbacks) {
      if (fb.isIdle(now)) this.fallbacks.delete(key);
      if (slicer.due()) await slicer.pause();
    }
    // a failed sync confirmed nothing: only dropped idle state makes room (else every new key at the
    // cap would pay a full scan while the store is away)
    if (this.limiters.size + this.fallbacks.size < before) this.isFull = false;
  }
}
