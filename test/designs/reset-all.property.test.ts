/**
 * resetAll (issue 36: express-rate-limit's resetAll) over every design, on a fleet of 1–4
 * AsyncGateways sharing one MemoryStore, with a clock the test moves, as
 * test/designs/reset-key.property.test.ts does for resetKey. Random requests of cost 1–2 on three
 * keys, random resets of one key and random resets of every key on one gateway (awaited, with the
 * round they run). The store resets in chunks of one key, so a reset of every key takes a call per key.
 *
 * Checked against the central log of the fleet's admits, each struck from the moment it is reset:
 * the resetting gateway's own admits it had not pushed, at once; every admit the store had been
 * pushed, at or before the reset's instant, when the store resets its key (a key's reset through
 * resetKey's path: the store's now; through the scan: the instant resetAll was called). Admits
 * another gateway had not pushed yet count once pushed (docs/decisions/0015-reset-all.md).
 * 1. Exact designs (central-log, leases, leases-ask): at every admit, the admits of its key still
 *    counting and not reset before it number at most L (split: K·ceil(L/K)).
 * 2. After every step, the store's count of each key is the sum of the admits pushed, still counting
 *    and not reset.
 * 3. resetAll and resetKey resolve true; once resetAll has, every admit the store counted when it
 *    was called is reset. At the end, after every gateway syncs, nothing waits.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Policy } from '../../src/config.js';
import { DESIGN_IDS, type DesignId, type WindowKind } from '../../src/config.js';
import { type AsyncGateway, createAsyncGateway } from '../../src/gateway/runtime/index.js';
import type { ResetScanReply, ResetScanRequest, SyncRequest, SyncResult } from '../../src/store/contract.js';
import { MemoryStore } from '../../src/store/memory-store.js';
import { expiryOf } from '../../src/window/expiry.js';
import { seeded } from '../support/fc-seed.js';

const EXACT = new Set<DesignId>(['central-log', 'leases', 'leases-ask']);

const caseArb = fc.record({
  design: fc.constantFrom(...DESIGN_IDS),
  gateways: fc.integer({ min: 1, max: 4 }),
  limit: fc.integer({ min: 1, max: 10 }),
  windowMs: fc.integer({ min: 200, max: 2_000 }),
  windowKind: fc.constantFrom<WindowKind[]>('sliding', 'fixed'),
  syncMs: fc.integer({ min: 20, max: 300 }),
  phases: fc.array(fc.integer({ min: 0, max: 299 }), { minLength: 4, maxLength: 4 }),
  steps: fc.array(
    fc.record({
      dt: fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 60 }), fc.integer({ min: 100, max: 900 })),
      g: fc.nat(3),
      key: fc.nat(2),
      cost: fc.oneof({ weight: 4, arbitrary: fc.constant(1) }, { weight: 1, arbitrary: fc.constant(2) }),
      reset: fc.oneof(
        { weight: 8, arbitrary: fc.constant('none' as const) },
        { weight: 1, arbitrary: fc.constant('key' as const) },
        { weight: 2, arbitrary: fc.constant('all' as const) },
      ),
    }),
    { minLength: 1, maxLength: 120 },
  ),
});

type Case = typeof caseArb extends fc.Arbitrary<infer T> ? T : never;

interface Admit {
  g: number;
  key: string;
  at: number;
  cost: number;
  pushed: boolean;
  /** Instant it was reset (Infinity: never). */
  resetAt: number;
}

/** A MemoryStore telling the test what each sync pushed and each key's reset struck. */
class WatchedStore extends MemoryStore {
  constructor(
    private readonly onSync: (req: SyncRequest) => void,
    private readonly onReset: (key: string, at: number) => void,
  ) {
    super();
  }

  override sync(req: SyncRequest, now: number): SyncResult {
    this.onSync(req);
    return super.sync(req, now);
  }

  protected override resetThrough(key: string, policy: Policy, at: number, now: number): number {
    this.onReset(key, at);
    return super.resetThrough(key, policy, at, now);
  }

  override resetScan(req: ResetScanRequest, now: number): ResetScanReply {
    // a key a call: the scan goes in as many chunks as keys
    return super.resetScan({ ...req, count: 1 }, now);
  }
}

describe('resetAll, every design, a fleet on one MemoryStore', () => {
  it('never more than L not reset in a window (exact designs); the store counts exactly what was pushed and not reset', async () => {
    await fc.assert(fc.asyncProperty(caseArb, runCase), seeded({ numRuns: 300 }));
  });
});

async function runCase(c: Case): Promise<void> {
  const { design, gateways, limit, windowMs, windowKind } = c;
  const syncMs = Math.min(c.syncMs, windowMs);
  const admits: Admit[] = [];
  const gwOf = (gatewayId: string) => Number(gatewayId.slice(1, gatewayId.indexOf('~')));
  const store = new WatchedStore(
    (req) => {
      const g = gwOf(req.gatewayId);
      for (const e of req.entries) {
        const at = new Set(e.admits);
        for (const a of admits)
          if (
            a.g === g &&
            a.key === e.key &&
            !a.pushed &&
            a.resetAt === Number.POSITIVE_INFINITY &&
            at.has(a.at)
          )
            a.pushed = true;
      }
    },
    (key, t) => {
      for (const a of admits)
        if (a.key === key && a.pushed && a.at <= t && a.resetAt === Number.POSITIVE_INFINITY) a.resetAt = now;
    },
  );
  let now = 1_000;
  const gws: AsyncGateway[] = [];
  for (let i = 0; i < gateways; i++) {
    gws.push(
      createAsyncGateway({
        id: `g${i}`,
        design,
        limit,
        windowMs,
        windowKind,
        gateways,
        syncMs,
        store,
        clock: () => now,
        random: () => 0.5,
      }),
    );
  }
  const nextSync = c.phases.slice(0, gateways).map((p) => now + (p % syncMs));
  const syncDue = async (until: number) => {
    for (;;) {
      let g = -1;
      for (let i = 0; i < gateways; i++)
        if (nextSync[i] <= until && (g < 0 || nextSync[i] < nextSync[g])) g = i;
      if (g < 0) return;
      now = nextSync[g];
      await gws[g].syncNow();
      nextSync[g] += syncMs;
    }
  };
  const counting = (a: Admit, t: number) => expiryOf(a.at, windowMs, windowKind) > t;
  const bound = design === 'split' ? gateways * Math.ceil(limit / gateways) : limit;
  const policy = gws[0].options.policy;
  const storeExact = () => {
    if (design === 'split') return;
    for (const key of ['k0', 'k1', 'k2']) {
      let want = 0;
      for (const a of admits)
        if (a.key === key && a.pushed && counting(a, now) && a.resetAt === Number.POSITIVE_INFINITY)
          want += a.cost;
      expect(store.countOf(key, policy, now)).toBe(want);
    }
  };
  for (const s of c.steps) {
    const until = now + s.dt;
    await syncDue(until);
    now = until;
    const g = s.g % gateways;
    const key = `k${s.key}`;
    if (s.reset !== 'none') {
      // the resetting gateway's own admits not pushed are forgotten at once
      for (const a of admits)
        if (
          a.g === g &&
          (s.reset === 'all' || a.key === key) &&
          !a.pushed &&
          a.resetAt === Number.POSITIVE_INFINITY
        )
          a.resetAt = now;
      // every admit the store counts when resetAll is called: each must be reset once it resolves
      const counted = admits.filter(
        (a) => a.pushed && counting(a, now) && a.resetAt === Number.POSITIVE_INFINITY,
      );
      expect(await (s.reset === 'all' ? gws[g].resetAll() : gws[g].resetKey(key))).toBe(true);
      // the round the reset ran in, to its end
      await gws[g].syncNow();
      if (s.reset === 'all')
        for (const a of counted) expect(a.resetAt).toBeLessThan(Number.POSITIVE_INFINITY);
      storeExact();
      continue;
    }
    const d = await gws[g].admit(key, s.cost);
    if (!d.allowed) continue;
    expect(d.degraded).toBeUndefined();
    const admit: Admit = {
      g,
      key,
      at: d.at!,
      cost: s.cost,
      pushed: design === 'central-log',
      resetAt: Number.POSITIVE_INFINITY,
    };
    admits.push(admit);
    if (EXACT.has(design) || design === 'split') {
      let inWindow = 0;
      for (const a of admits)
        if (a.key === key && counting(a, admit.at) && !(a.resetAt <= admit.at)) inWindow += a.cost;
      expect(inWindow).toBeLessThanOrEqual(bound);
    }
    storeExact();
  }
  for (let round = 0; round < 3; round++) for (const gw of gws) await gw.syncNow();
  storeExact();
  for (const gw of gws) expect(gw.resetStats.pending).toBe(0);
}
