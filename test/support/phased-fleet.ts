/**
 * A fleet of 1–4 AsyncGateways sharing one store, on a clock the test moves: each gateway syncs
 * every Δ at its own phase, and the syncs due by an instant run (each at its own instant) before the
 * requests at it. Beside it, the central log of the fleet's admits, each struck from the moment a
 * reset or refund took it back, which the refund, resetKey and resetAll properties check against
 * (test/designs/{refunds,reset-key,reset-all}.property.test.ts).
 */
import fc from 'fast-check';
import { expect } from 'vitest';
import { DESIGN_IDS, type DesignId, type Policy, type WindowKind } from '../../src/config.js';
import type { Decision } from '../../src/gateway/decision.js';
import { type AsyncGateway, createAsyncGateway } from '../../src/gateway/runtime/index.js';
import type { SyncRequest } from '../../src/store/contract.js';
import type { MemoryStore } from '../../src/store/memory-store.js';
import { expiryOf } from '../../src/window/expiry.js';

/** The designs that never let more than L count in a window (split: K·ceil(L/K)). */
const EXACT = new Set<DesignId>(['central-log', 'leases', 'leases-ask']);

/** The fleet's shape, drawn: what every property of this family varies before its own steps. */
export const fleetFields = {
  design: fc.constantFrom(...DESIGN_IDS),
  gateways: fc.integer({ min: 1, max: 4 }),
  limit: fc.integer({ min: 1, max: 10 }),
  windowMs: fc.integer({ min: 200, max: 2_000 }),
  windowKind: fc.constantFrom<WindowKind[]>('sliding', 'fixed'),
  syncMs: fc.integer({ min: 20, max: 300 }),
  phases: fc.array(fc.integer({ min: 0, max: 299 }), { minLength: 4, maxLength: 4 }),
};

/**
 * The same fleet at scale: K of 8, 16 or 32 gateways, L of 100 or 1,000, W of 10–60 s so a case's
 * steps (about 20 s) fill a window (the brief's scales; fewer runs, each a few hundred syncs).
 */
export const scaleFleetFields = {
  design: fc.constantFrom(...DESIGN_IDS),
  gateways: fc.constantFrom(8, 16, 32),
  limit: fc.constantFrom(100, 1_000),
  windowMs: fc.integer({ min: 10_000, max: 60_000 }),
  windowKind: fc.constantFrom<WindowKind[]>('sliding', 'fixed'),
  syncMs: fc.integer({ min: 500, max: 5_000 }),
  phases: fc.array(fc.integer({ min: 0, max: 4_999 }), { minLength: 32, maxLength: 32 }),
};

/** Costs at scale, so a few dozen admits reach L: 1, up to L/20, or L/5. */
export function scaleCost(limit: number): fc.Arbitrary<number> {
  return fc.oneof(
    { weight: 2, arbitrary: fc.constant(1) },
    { weight: 4, arbitrary: fc.integer({ min: 1, max: Math.ceil(limit / 20) }) },
    { weight: 1, arbitrary: fc.constant(Math.ceil(limit / 5)) },
  );
}

/**
 * A case of this family at scale: the fleet's fields drawn first, then 100–200 steps whose costs
 * follow L (enough for a key to reach L in a window).
 */
export function atScale<S>(steps: (cost: fc.Arbitrary<number>, minLength: number) => fc.Arbitrary<S[]>) {
  return fc
    .record(scaleFleetFields)
    .chain((f) => steps(scaleCost(f.limit), 100).map((s) => ({ ...f, steps: s })));
}

/** A step's wait before it: none, a little, or most of a Δ or more. */
export const stepDt = fc.oneof(
  fc.constant(0),
  fc.integer({ min: 1, max: 60 }),
  fc.integer({ min: 100, max: 900 }),
);

/** A request's cost: mostly 1, sometimes 2. */
export const stepCost = fc.oneof(
  { weight: 4, arbitrary: fc.constant(1) },
  { weight: 1, arbitrary: fc.constant(2) },
);

export interface FleetCase {
  design: DesignId;
  gateways: number;
  limit: number;
  windowMs: number;
  windowKind: WindowKind;
  syncMs: number;
  phases: number[];
}

/** One admit of the fleet, as the central log holds it. */
export interface FleetAdmit {
  g: number;
  key: string;
  at: number;
  cost: number;
  /** Whether the store has been pushed it (central-log's are, at once). */
  pushed: boolean;
  /** Instant a reset or refund took it back (Infinity: never). */
  struckAt: number;
}

export class PhasedFleet {
  /** The fleet's clock, which the gateways read. */
  now = 1_000;
  readonly gws: AsyncGateway[] = [];
  readonly admits: FleetAdmit[] = [];
  /** Most admits a key may count in a window: L, or split's K·ceil(L/K). */
  readonly bound: number;
  private readonly syncMs: number;
  private readonly nextSync: number[];

  constructor(
    readonly c: FleetCase,
    store: MemoryStore,
  ) {
    const { design, gateways, limit, windowMs, windowKind } = c;
    this.syncMs = Math.min(c.syncMs, windowMs);
    for (let i = 0; i < gateways; i++) {
      this.gws.push(
        createAsyncGateway({
          id: `g${i}`,
          design,
          limit,
          windowMs,
          windowKind,
          gateways,
          syncMs: this.syncMs,
          store,
          clock: () => this.now,
          random: () => 0.5,
        }),
      );
    }
    this.nextSync = c.phases.slice(0, gateways).map((p) => this.now + (p % this.syncMs));
    this.bound = design === 'split' ? gateways * Math.ceil(limit / gateways) : limit;
  }

  get policy(): Policy {
    return this.gws[0].options.policy;
  }

  /** Runs every sync due by now + dt, each at its instant in phase order, then moves now there. */
  async advance(dt: number): Promise<void> {
    const until = this.now + dt;
    for (;;) {
      let g = -1;
      for (let i = 0; i < this.gws.length; i++)
        if (this.nextSync[i] <= until && (g < 0 || this.nextSync[i] < this.nextSync[g])) g = i;
      if (g < 0) break;
      this.now = this.nextSync[g];
      await this.gws[g].syncNow();
      this.nextSync[g] += this.syncMs;
    }
    this.now = until;
  }

  /** Every gateway syncs `rounds` more times at this instant, in order. */
  async settle(rounds = 3): Promise<void> {
    for (let round = 0; round < rounds; round++) for (const gw of this.gws) await gw.syncNow();
  }

  /** Whether admit a still counts at t. */
  counting(a: FleetAdmit, t: number): boolean {
    return expiryOf(a.at, this.c.windowMs, this.c.windowKind) > t;
  }

  /**
   * Records gateway g's allowed decision d for key, and checks the exact designs' bound at its
   * instant: the admits of the key still counting and not struck by then number at most L.
   */
  record(g: number, key: string, d: Decision, cost: number): FleetAdmit {
    expect(d.degraded).toBeUndefined();
    const admit: FleetAdmit = {
      g,
      key,
      at: d.at!,
      cost,
      pushed: this.c.design === 'central-log',
      struckAt: Number.POSITIVE_INFINITY,
    };
    this.admits.push(admit);
    if (EXACT.has(this.c.design) || this.c.design === 'split') {
      let inWindow = 0;
      for (const a of this.admits)
        if (a.key === key && this.counting(a, admit.at) && !(a.struckAt <= admit.at)) inWindow += a.cost;
      expect(inWindow).toBeLessThanOrEqual(this.bound);
    }
    return admit;
  }

  /** Marks pushed the admits a gateway's sync carries (a store that watches its syncs calls this). */
  pushedBy(req: SyncRequest): void {
    const g = Number(req.gatewayId.slice(1, req.gatewayId.indexOf('~')));
    for (const e of req.entries) {
      const at = new Set(e.admits);
      for (const a of this.admits)
        if (a.g === g && a.key === e.key && !a.pushed && !this.struck(a) && at.has(a.at)) a.pushed = true;
    }
  }

  struck(a: FleetAdmit): boolean {
    return a.struckAt !== Number.POSITIVE_INFINITY;
  }

  /** The cost the store should count for key now: the admits still counting, not struck (and pushed). */
  want(key: string, pushedOnly: boolean): number {
    let n = 0;
    for (const a of this.admits)
      if (a.key === key && (a.pushed || !pushedOnly) && this.counting(a, this.now) && !this.struck(a))
        n += a.cost;
    return n;
  }

  /** Each key's count in the store is what the central log says (split keeps no store: skipped). */
  expectStore(store: MemoryStore, keys: readonly string[], pushedOnly = true): void {
    if (this.c.design === 'split') return;
    for (const key of keys)
      expect(store.countOf(key, this.policy, this.now)).toBe(this.want(key, pushedOnly));
  }
}
