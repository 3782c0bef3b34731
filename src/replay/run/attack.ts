/**
 * `--attack 100x@KEY@TIME`: a team's own traffic under attack. From TIME on, key KEY also gets a flood
 * of 100 × L per W (Poisson, from a seeded stream), spread evenly over the gateways until the log ends,
 * merged into the log's arrivals in time order and marked `flood: true` (its rejections are not
 * honest ones). TIME is in the log's clock: an ISO time, or +10m after the log's first arrival.
 */

import { Random } from '../../sim/random.js';
import type { Arrival } from '../arrival.js';
import { type Emit, type Stage, staged } from './stage.js';

export interface AttackSpec {
  /** the flood's rate, as a multiple of L per W */
  times: number;
  key: string;
  /** absolute ms since the epoch, or an offset from the log's first arrival */
  at: { absolute: number } | { afterStart: number };
}

const UNIT_MS = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 } as const;

/** Parses one --attack value; errors say what is wrong with it (the caller names the flag). */
export function parseAttack(raw: string): AttackSpec {
  const first = raw.indexOf('@');
  const last = raw.lastIndexOf('@');
  if (first < 0 || last === first)
    throw new RangeError(`expected RATEx@KEY@TIME, e.g. 100x@alice@+10m; got "${raw}"`);
  const rate = /^(\d+(?:\.\d+)?)x$/i.exec(raw.slice(0, first).trim());
  if (rate === null || !(Number(rate[1]) > 0))
    throw new RangeError(`the rate is a multiple of the limit like 100x; got "${raw.slice(0, first)}"`);
  const key = raw.slice(first + 1, last);
  if (key.length === 0) throw new RangeError(`the key is empty in "${raw}"`);
  const time = raw.slice(last + 1).trim();
  const rel = /^\+(\d+(?:\.\d+)?)(ms|s|m|h)$/.exec(time);
  if (rel !== null)
    return {
      times: Number(rate[1]),
      key,
      at: { afterStart: Number(rel[1]) * UNIT_MS[rel[2] as keyof typeof UNIT_MS] },
    };
  // an ISO date-time (a date alone would be read as UTC midnight: allowed, it is still a time)
  const abs = /^\d{4}-\d{2}-\d{2}/.test(time) ? Date.parse(time) : Number.NaN;
  if (!Number.isFinite(abs))
    throw new RangeError(`the time is ISO (2026-03-01T12:00:00Z) or relative (+10m, +90s); got "${time}"`);
  return { times: Number(rate[1]), key, at: { absolute: abs } };
}

/** One flood's arrivals, generated lazily: next() gives the next one at or after the previous. */
class Flood {
  next = Number.POSITIVE_INFINITY;
  private readonly perMs: number;

  constructor(
    readonly spec: AttackSpec,
    private readonly rng: Random,
    limit: number,
    windowMs: number,
    private readonly gateways: number,
  ) {
    this.perMs = (spec.times * limit) / windowMs;
  }

  start(firstArrival: number): void {
    const from = 'absolute' in this.spec.at ? this.spec.at.absolute : firstArrival + this.spec.at.afterStart;
    this.next = from + this.rng.exponential(this.perMs);
  }

  take(): Arrival {
    const a: Arrival = {
      t: this.next,
      key: this.spec.key,
      gateway: Math.min(this.gateways - 1, Math.floor(this.rng.uniform() * this.gateways)),
      flood: true,
    };
    this.next += this.rng.exponential(this.perMs);
    return a;
  }
}

interface OverlayOptions {
  limit: number;
  windowMs: number;
  gateways: number;
  seed: number;
}

/** --attack as a stage; null without an attack (no stage at all). */
export function attackStage(attacks: readonly AttackSpec[], opts: OverlayOptions): Stage | null {
  return attacks.length === 0 ? null : new AttackStage(attacks, opts);
}

/** The log's arrivals with the floods merged in (a flood arrival at a log arrival's instant comes after it). */
class AttackStage implements Stage {
  private readonly floods: Flood[];
  private started = false;

  constructor(attacks: readonly AttackSpec[], opts: OverlayOptions) {
    // its own stream: the log's arrivals and the sync phases draw nothing from it
    const rng = new Random((opts.seed ^ 0x1b873593) >>> 0);
    this.floods = attacks.map((a) => new Flood(a, rng, opts.limit, opts.windowMs, opts.gateways));
  }

  push(a: Arrival, emit: Emit): void {
    if (!this.started) {
      for (const f of this.floods) f.start(a.t);
      this.started = true;
    }
    for (;;) {
      let first: Flood | null = null;
      for (const f of this.floods) if (f.next < a.t && (first === null || f.next < first.next)) first = f;
      if (first === null) break;
      emit(first.take());
    }
    emit(a);
  }

  /** The floods end with the log. */
  end(_emit: Emit): void {}
}

/** --attack over an async source (a stage; the source itself without an attack). */
export function overlayAttacks(
  source: AsyncIterable<Arrival>,
  attacks: readonly AttackSpec[],
  opts: OverlayOptions,
): AsyncIterable<Arrival> {
  const stage = attackStage(attacks, opts);
  return stage === null ? source : staged(source, [stage]);
}
