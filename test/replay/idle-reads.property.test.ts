// adaptive-early's idle reads (src/replay/run/read-steps.ts): a read applied at once, without the
// store's reply, against the full sync it stands for (ReadSteps.idle refused: every sync in full). On
// random streams, K = 2–32, a key's requests on any gateway (random routing) or on one (hash), quiet
// and busy keys, L = 1–300, several Δ: the same decision on every request, the same figures, and the
// same state of every gateway's limiter of the key just decided, field by field (the share, the
// part's share, the view the next full sync wrote, the bookkeeping), and of every key at the end.
// Through a replay's checked chunks too (undone and decided again in time order where a decision
// wanted an early sync: the reads' ticks no longer tell what the states put back read).
import fc from 'fast-check';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { KeyLimiter } from '../../src/designs/key-limiter.js';
import { ReplayRun } from '../../src/replay/run/engine.js';
import { ReplayFleet } from '../../src/replay/run/fleet.js';
import type { KeyTrack } from '../../src/replay/run/key-track.js';
import { ReadSteps } from '../../src/replay/run/read-steps.js';
import { FC_SEED, seeded } from '../support/fc-seed.js';
import { type Step, stepArrivals, stepsOf } from './support.js';

interface Case {
  K: number;
  limit: number;
  windowMs: number;
  syncMs: number;
  reads: 'every-sync' | 'on-request';
  hash: boolean;
  seed: number;
  keys: number;
  steps: Step[];
}

// quiet keys (gaps of several Δ, many idle reads between requests) and busy ones (within Δ)
const quiet = fc.oneof(
  { weight: 4, arbitrary: fc.integer({ min: 500, max: 6000 }) },
  { weight: 2, arbitrary: fc.integer({ min: 0, max: 400 }) },
  { weight: 1, arbitrary: fc.integer({ min: 6000, max: 40_000 }) },
);
const busy = fc.oneof(
  { weight: 6, arbitrary: fc.integer({ min: 0, max: 120 }) },
  { weight: 2, arbitrary: fc.constant(0) },
  { weight: 2, arbitrary: fc.integer({ min: 120, max: 3000 }) },
);

const aCase = (gaps: fc.Arbitrary<number>): fc.Arbitrary<Case> =>
  fc
    .record({
      K: fc.oneof(fc.integer({ min: 2, max: 5 }), fc.constantFrom(8, 16, 32)),
      limit: fc.oneof(fc.integer({ min: 1, max: 12 }), fc.integer({ min: 13, max: 300 })),
      windowMs: fc.constantFrom(2000, 5000, 10_000, 60_000),
      syncMs: fc.constantFrom(250, 700, 1000),
      reads: fc.constantFrom('every-sync' as const, 'every-sync' as const, 'on-request' as const),
      hash: fc.boolean(),
      seed: fc.integer({ min: 1, max: 1000 }),
      keys: fc.integer({ min: 1, max: 5 }),
    })
    .chain((c) =>
      stepsOf(gaps, c.keys, fc.integer({ min: 0, max: c.K - 1 }), [], { minLength: 1, maxLength: 300 }).map(
        (steps) => ({
          ...c,
          // hash routing: each key on one gateway
          steps: c.hash ? steps.map(([dt, k]): Step => [dt, k, k % c.K]) : steps,
        }),
      ),
    );

const settingsOf = (c: Case) => ({
  design: 'adaptive-early' as const,
  gateways: c.K,
  limit: c.limit,
  windowMs: c.windowMs,
  syncMs: c.syncMs,
  seed: c.seed,
  reads: c.reads,
});

/** Every gateway's limiter of the key (null: not held there). */
function limsOf(fleet: ReplayFleet, K: number, key: string): (KeyLimiter | null)[] {
  const perKey = (fleet as unknown as { perKey: { tracks: Map<string, KeyTrack> } }).perKey;
  const tracks = perKey.tracks;
  const tr = tracks.get(key);
  return Array.from({ length: K }, (_, g) => (tr === undefined ? null : tr.peek(g).lim));
}

/**
 * A limiter's state as plain data: its logs' runs up to their end only (past it, what a pooled log
 * held before: AdmitLog's spare pool, shared by both runs of a case).
 */
function plain(v: unknown): unknown {
  if (v === null || typeof v !== 'object') return v;
  if (ArrayBuffer.isView(v)) return Array.from(v as Float64Array);
  if (Array.isArray(v)) return v.map(plain);
  const o = v as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(o)) out[k] = plain(o[k]);
  if (ArrayBuffer.isView(o.times) && typeof o.end === 'number') {
    out.times = Array.from((o.times as Float64Array).subarray(0, o.end));
    if (ArrayBuffer.isView(o.counts)) out.counts = Array.from((o.counts as Uint32Array).subarray(0, o.end));
  }
  return out;
}

interface Run {
  decided: boolean[];
  /** after each request, its key's limiters */
  states: unknown[][];
  end: unknown[][];
  keySyncs: number;
  storeCalls: number;
  early: number;
  held: number;
}

/** The case through a fleet, request by request, with or without idle reads. */
function run(c: Case, idle: boolean): Run {
  const off = idle ? null : vi.spyOn(ReadSteps.prototype, 'idle').mockReturnValue(false);
  try {
    const fleet = new ReplayFleet({ ...settingsOf(c), origin: 1000 });
    const out: Run = { decided: [], states: [], end: [], keySyncs: 0, storeCalls: 0, early: 0, held: 0 };
    for (const a of stepArrivals(c.steps)) {
      out.decided.push(fleet.arrive(a.key, a.gateway, a.t));
      // as data now: the objects go on changing
      out.states.push(limsOf(fleet, c.K, a.key).map(plain));
    }
    out.keySyncs = fleet.keySyncs();
    out.storeCalls = fleet.storeCalls();
    out.early = fleet.earlySyncs();
    out.held = fleet.keysHeld;
    for (let k = 0; k < c.keys; k++) out.end.push(limsOf(fleet, c.K, `key${k}`).map(plain));
    return out;
  } finally {
    off?.mockRestore();
  }
}

/** The idle reads applied so far (ReadSteps.idle answering true). */
let applied = 0;
const SEED = process.env.FC_SEED ? FC_SEED : 4801;

function same(c: Case): void {
  const spy = vi.spyOn(ReadSteps.prototype, 'idle');
  const fast = run(c, true);
  for (const r of spy.mock.results) if (r.value === true) applied++;
  spy.mockRestore();
  const full = run(c, false);
  expect(fast.decided).toEqual(full.decided);
  for (let j = 0; j < full.states.length; j++)
    expect(fast.states[j], `after request ${j}`).toEqual(full.states[j]);
  expect(fast.end).toEqual(full.end);
  expect(fast.keySyncs).toBe(full.keySyncs);
  expect(fast.storeCalls).toBe(full.storeCalls);
  expect(fast.early).toBe(full.early);
  expect(fast.held).toBe(full.held);
}

describe('adaptive-early: an idle read applied at once leaves what the full sync leaves', () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it('quiet keys: K = 2–32, random and hash routing, L = 1–300, several Δ', () => {
    applied = 0;
    fc.assert(fc.property(aCase(quiet), same), { ...seeded({ numRuns: 250 }), seed: SEED });
    // the shortcut is taken, not only refused: 8,878–13,424 over seeds 1–4 and 4801
    expect(applied).toBeGreaterThan(4000);
  }, 120_000);

  it('busy keys: early syncs, other holders pushing between the reads', () => {
    applied = 0;
    fc.assert(fc.property(aCase(busy), same), { ...seeded({ numRuns: 250 }), seed: SEED });
    // 560–791 over seeds 1–4
    expect(applied).toBeGreaterThan(200);
  }, 120_000);

  it('checked chunks (undone and decided again in time order): the same decisions and figures', () => {
    const undone = vi.spyOn(ReplayFleet.prototype, 'rollback');
    fc.assert(
      fc.property(aCase(busy), fc.integer({ min: 1, max: 200 }), (c, chunk) => {
        const grouped = (idle: boolean) => {
          const off = idle ? null : vi.spyOn(ReadSteps.prototype, 'idle').mockReturnValue(false);
          try {
            const decided: boolean[] = [];
            const r = new ReplayRun({ ...settingsOf(c), designs: ['adaptive-early'], top: 3 }, null, {
              chunk,
              onDecide: (seq, d) => {
                decided[seq] = d[1] === 1;
              },
            });
            for (const a of stepArrivals(c.steps)) r.push(a);
            const row = r.finish().designs[0];
            return { decided, keySyncs: row.keySyncs, storeCalls: row.storeCalls };
          } finally {
            off?.mockRestore();
          }
        };
        expect(grouped(true)).toEqual(grouped(false));
      }),
      { ...seeded({ numRuns: 200 }), seed: SEED },
    );
    // chunks undone (ReadSteps.rollback's epoch reached): 254–286 over seeds 1–4
    expect(undone.mock.calls.length).toBeGreaterThan(50);
  }, 120_000);
});
