import type { Policy } from '../../config.js';
import { expiryOf } from '../../window/expiry.js';
import { type RunList, runTotal } from '../../window/runs.js';
import { TimeLog } from '../../window/time-log.js';

const NONE: RunList = { t: [], n: [] };

/**
 * One key's admits made while the store was unreachable (fail modes `local` and `open`).
 * They serve two purposes: the `local` fail mode decides from them (a split of the limit), and they
 * are pushed to the store once it answers again, so its count includes what the outage let through.
 *
 * Bounded: only admits that still count are kept (the store would ignore the others), and at most
 * `cap` of them at a time — ceil(L/K) in `local` mode by construction, L in `open` mode by the cap.
 * A request of any cost is one run (time, count) in each list, so its size follows requests.
 */
export class Fallback {
  /** Degraded admits that still count now. */
  private readonly window = new TimeLog(2);
  /** Not yet sent to the store, ascending runs: `n[i]` admits at `t[i]`. */
  private unpushed: RunList = { t: [], n: [] };
  private unpushedTotal = 0;
  /** Admits in a sync that has not been answered yet (possibly a frozen one awaiting its resend). */
  private sending = 0;

  constructor(private readonly policy: Policy) {}

  /** Degraded admits that still count at `now`. */
  live(now: number): number {
    this.window.dropExpired(now, this.policy.windowMs, this.policy.windowKind);
    return this.window.size;
  }

  /** Records up to `cost` admits at `now` without exceeding `cap` live ones; returns how many it kept. */
  record(now: number, cost: number, cap: number): number {
    const room = Math.max(0, Math.min(cost, cap - this.live(now)));
    if (room <= 0) return 0;
    this.window.insertMany(now, room);
    const u = this.unpushed;
    const last = u.t.length - 1;
    if (last >= 0 && u.t[last] === now) u.n[last] += room;
    else {
      u.t.push(now);
      u.n.push(room);
    }
    this.unpushedTotal += room;
    return room;
  }

  /** When the oldest degraded admit stops counting (Infinity if none). */
  resetAt(now: number): number {
    this.live(now);
    const { windowMs, windowKind } = this.policy;
    return this.window.size === 0
      ? Number.POSITIVE_INFINITY
      : expiryOf(this.window.first(), windowMs, windowKind);
  }

  /**
   * The first instant at which `cost` more fit under `cap` live admits (now if they do), as the oldest
   * age out (the `local` fail mode's Retry-After). Infinity if they never would (cost > cap).
   */
  admitsAt(now: number, cost: number, cap: number): number {
    const live = this.live(now);
    // the n oldest must age out, n the least with live − n + cost − 1 < cap
    const n = Math.floor(live + cost - 1 - cap) + 1;
    if (n <= 0) return now;
    if (n > live) return Number.POSITIVE_INFINITY;
    const { windowMs, windowKind } = this.policy;
    return expiryOf(this.window.at(n - 1), windowMs, windowKind);
  }

  /** Admits recorded but not yet confirmed by the store. While any are, the key stays on the fallback. */
  get unconfirmed(): number {
    return this.unpushedTotal + this.sending;
  }

  /**
   * Moves the unpushed admits that still count into a sync; returns them as ascending runs (`n[i]`
   * admits at `t[i]`: SyncEntry.admits and .counts).
   */
  take(now: number): RunList {
    if (this.sending > 0) throw new Error('fallback admits are already in an unanswered sync');
    const { windowMs, windowKind } = this.policy;
    const u = this.unpushed;
    const taken: RunList = { t: [], n: [] };
    for (let i = 0; i < u.t.length; i++) {
      if (expiryOf(u.t[i], windowMs, windowKind) > now) {
        taken.t.push(u.t[i]);
        taken.n.push(u.n[i]);
      }
    }
    this.unpushed = { t: [], n: [] };
    this.unpushedTotal = 0;
    if (taken.t.length === 0) return NONE;
    this.sending = runTotal(taken.t, taken.n);
    return taken;
  }

  /** The sync carrying them was answered: the store has them. */
  confirm(): void {
    this.sending = 0;
  }

  /** Nothing that still counts and nothing in flight; unpushed admits that aged out are dropped here. */
  isIdle(now: number): boolean {
    if (this.live(now) > 0 || this.sending > 0) return false;
    // every unpushed admit is in the window log, so with none live they have all aged out
    this.unpushed = { t: [], n: [] };
    this.unpushedTotal = 0;
    return true;
  }
}
