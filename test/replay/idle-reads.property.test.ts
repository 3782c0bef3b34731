// adaptive-early's idle reads (src/replay/run/read-steps.ts): a read applied at once, without the
// store's reply, against the full sync it stands for (ReadSteps.idle refused: every sync in full). On
// random streams, K = 2–32, a key's requests on any gateway (random routing) or on one (hash), quiet
// and busy keys, L = 1–300, several Δ: the same decision on every request, the same figures, and the
// same state of every gateway's limiter of the key just decided, field by field (the share, the
// part's share, the view the next full sync wrote, the bookkeeping), and of every key at the end.
// Through a replay's checked chunks too (undone and decided again in time order where a decision
// wanted an early sync: the reads' ticks no longer tell what the states put back read), the limiters
// compared after every decision, undone ones included. Each of the shortcut's guards is seen failing
// here when dropped: the ones the random streams rarely reach by fixed cases (the property found
// them, or they are built by hand: an early sync before another holder pushes in the run).
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

// both, on few gateways and windows of 1–40 Δ: a gateway's own admits pushed late (SyncedKey's
// `late`, due within a read's horizon or not), and chunks undone after a few requests of a key
const mixed = fc.oneof(fc.integer({ min: 0, max: 300 }), fc.integer({ min: 300, max: 2500 }));

const aCase = (gaps: fc.Arbitrary<number>, wide = false): fc.Arbitrary<Case> =>
  fc
    .record({
      K: wide
        ? fc.integer({ min: 2, max: 4 })
        : fc.oneof(fc.integer({ min: 2, max: 5 }), fc.constantFrom(8, 16, 32)),
      limit: fc.oneof(fc.integer({ min: 1, max: 12 }), fc.integer({ min: 13, max: 300 })),
      windowMs: wide
        ? fc.constantFrom(1000, 1500, 2000, 2500, 5000, 10_000)
        : fc.constantFrom(2000, 5000, 10_000, 60_000),
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

/**
 * The view's own fields: an idle read past the run's rules leaves the view of the gateway's last full
 * read in place (ReadSteps.idle, AdaptiveEarlyKey.listsBefore), another count over other listed
 * expiries, which tells the same until the gateway's next sync. Compared by what it tells instead:
 * the admits it counts at `t` (the decision's instant; a decision and a full sync read no more of it).
 */
const VIEW = [
  'count',
  'expiries',
  'expCounts',
  'expIdx',
  'expGone',
  'readHorizon',
  'unlistedFrom',
  'below',
  'past',
  'freed',
  'stableUntil',
  'changeCached',
];

/** A limiter's state as plain data (plain), its view as the admits it counts at t. */
function seen(lim: KeyLimiter | null, t: number): unknown {
  if (lim === null) return null;
  const o = plain(lim) as Record<string, unknown>;
  for (const f of VIEW) delete o[f];
  o.knownAt = (lim as unknown as { known(now: number): number }).known(t);
  return o;
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
function run(c: Case, idle: boolean, horizonMs?: number): Run {
  const off = idle ? null : vi.spyOn(ReadSteps.prototype, 'idle').mockReturnValue(false);
  try {
    const fleet = new ReplayFleet({ ...settingsOf(c), origin: 1000 });
    if (horizonMs !== undefined) {
      const perKey = (fleet as unknown as { perKey: { reqs: { horizonMs: number }[] } }).perKey;
      for (const req of perKey.reqs) req.horizonMs = horizonMs;
    }
    const out: Run = { decided: [], states: [], end: [], keySyncs: 0, storeCalls: 0, early: 0, held: 0 };
    let last = 0;
    for (const a of stepArrivals(c.steps)) {
      out.decided.push(fleet.arrive(a.key, a.gateway, a.t));
      // as data now: the objects go on changing
      out.states.push(limsOf(fleet, c.K, a.key).map((l) => seen(l, a.t)));
      last = a.t;
    }
    out.keySyncs = fleet.keySyncs();
    out.storeCalls = fleet.storeCalls();
    out.early = fleet.earlySyncs();
    out.held = fleet.keysHeld;
    for (let k = 0; k < c.keys; k++) out.end.push(limsOf(fleet, c.K, `key${k}`).map((l) => seen(l, last)));
    return out;
  } finally {
    off?.mockRestore();
  }
}

/** A replay's adaptive-early fleet (its fleets are made at its first arrival). */
function fleetOf(r: ReplayRun): ReplayFleet {
  const fleets = (r as unknown as { fleets: (ReplayFleet | null)[] }).fleets;
  const f = fleets.find((x): x is ReplayFleet => x instanceof ReplayFleet);
  if (f === undefined) throw new Error('no adaptive-early fleet');
  return f;
}

/**
 * The case through a replay in checked chunks of `chunk` arrivals, with or without idle reads: its
 * decisions and figures, and after each decision (a chunk's, the ones undone, the ones made again)
 * its key's limiters, and every key's at the end.
 */
function grouped(c: Case, chunk: number, idle: boolean) {
  const off = idle ? null : vi.spyOn(ReadSteps.prototype, 'idle').mockReturnValue(false);
  const decideAt = ReplayFleet.prototype.decideAt;
  const states: unknown[][] = [];
  let last = 0;
  const spy = vi.spyOn(ReplayFleet.prototype, 'decideAt').mockImplementation(function (
    this: ReplayFleet,
    ...args: Parameters<ReplayFleet['decideAt']>
  ) {
    const d = decideAt.apply(this, args);
    states.push(limsOf(this, c.K, args[0]).map((l) => seen(l, args[2])));
    last = Math.max(last, args[2]);
    return d;
  });
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
    const end: unknown[][] = [];
    for (let k = 0; k < c.keys; k++) end.push(limsOf(fleetOf(r), c.K, `key${k}`).map((l) => seen(l, last)));
    return { decided, states, end, keySyncs: row.keySyncs, storeCalls: row.storeCalls };
  } finally {
    spy.mockRestore();
    off?.mockRestore();
  }
}

const LATE_DUE: Case = {
  ...{ K: 2, limit: 19, windowMs: 5000, syncMs: 250, reads: 'every-sync', hash: true, seed: 737, keys: 1 },
  steps: [
    [300, 0, 0],
    [300, 0, 0],
    [52, 0, 0],
    [76, 0, 0],
    [150, 0, 0],
    [1225, 0, 0],
    [1259, 0, 0],
    [48, 0, 0],
    [1968, 0, 0],
  ],
};
const LATE_DUE_CHUNKED: Case = {
  ...{ K: 4, limit: 5, windowMs: 5000, syncMs: 250, reads: 'every-sync', hash: true, seed: 3, keys: 1 },
  steps: [
    [0, 0, 0],
    [239, 0, 0],
    [1402, 0, 0],
    [1728, 0, 0],
    [96, 0, 0],
    [320, 0, 0],
    [534, 0, 0],
    [121, 0, 0],
    [110, 0, 0],
    [847, 0, 0],
    [2033, 0, 0],
  ],
};
/** Another holder pushes after a gateway's read in the run, before its next (reply horizon Δ). */
const PUSHED_LATER: Case[] = [
  {
    ...{ K: 3, limit: 81, windowMs: 5000, syncMs: 700, reads: 'every-sync', hash: false, seed: 9, keys: 1 },
    steps: [
      [300, 0, 0],
      [29, 0, 0],
      [286, 0, 0],
      [644, 0, 1],
      [2273, 0, 1],
      [2001, 0, 1],
      [1679, 0, 0],
      [300, 0, 0],
    ],
  },
  {
    ...{ K: 2, limit: 9, windowMs: 2500, syncMs: 250, reads: 'every-sync', hash: false, seed: 111, keys: 1 },
    steps: [
      [300, 0, 0],
      [300, 0, 1],
      [192, 0, 1],
      [2067, 0, 1],
      [443, 0, 0],
    ],
  },
];
/** Checked in chunks of 2: another holder's push read by a chunk that is undone. */
const UNDONE: Case[] = [
  {
    ...{ K: 4, limit: 2, windowMs: 5000, syncMs: 1000, reads: 'every-sync', hash: false, seed: 802, keys: 3 },
    steps: [
      [300, 0, 0],
      [1214, 0, 1],
      [597, 0, 0],
      [2274, 0, 2],
      [97, 0, 0],
      [1293, 0, 0],
      [300, 1, 0],
    ],
  },
  {
    ...{
      K: 4,
      limit: 4,
      windowMs: 10_000,
      syncMs: 1000,
      reads: 'every-sync',
      hash: false,
      seed: 111,
      keys: 3,
    },
    steps: [
      [0, 0, 0],
      [811, 0, 1],
      [1270, 1, 0],
      [86, 1, 0],
      [40, 0, 0],
      [0, 0, 0],
    ],
  },
];

/**
 * Gateway 1's request of key0 at 4060 is pushed at its next sync (4108.07), after gateway 0's early
 * syncs (key1's requests at 4070 on) and before gateway 0's next regular one (4301.68): those early
 * syncs come before the run's last first sync of a holder with admits to push (`quietFrom`), so each
 * reads in full. Taken for idle, they would leave gateway 0 on its view of 4051.68, whose reply
 * (expiries before now + Δ, strictly, with replies listing within Δ only) did not list gateway 1's
 * admit at `leaves`, leaving at 4301.68 exactly: that read would still count it in the view, and
 * take gateway 1's push for none of the others'. An early sync's next full read is at most Δ after
 * its last one, so only an admit leaving exactly then shows the guard (regular syncs: PUSHED_LATER).
 */
function earlyBeforePush(): Case {
  const c: Case = {
    ...{ K: 2, limit: 9, windowMs: 2500, syncMs: 250, reads: 'every-sync', hash: false, seed: 111, keys: 2 },
    steps: [],
  };
  const fleet = new ReplayFleet({ ...settingsOf(c), origin: 1000 });
  // gateway 0's regular syncs at indices 24 and 26, gateway 1's at 25 (seed 111's phases)
  const [last, push, next] = [fleet.syncAt(24), fleet.syncAt(25), fleet.syncAt(26)];
  const leaves = next - c.windowMs;
  // the instants the case stands on: exact, not rounded past them
  expect([last + c.syncMs, leaves + c.windowMs]).toEqual([next, next]);
  expect(last < 4060 && 4071 < push).toBe(true);
  c.steps = [
    [300, 0, 0],
    [300, 0, 1],
    // 1600 + this is `leaves` exactly (a difference of doubles within 2× of each other is exact)
    [leaves - 1600, 0, 1],
    [4060 - leaves, 0, 1],
    [10, 1, 0],
    [0.25, 1, 0],
    [0.25, 1, 0],
    [0.25, 1, 0],
    [629.25, 0, 0],
  ];
  return c;
}

/** The idle reads applied so far (ReadSteps.idle answering true). */
let applied = 0;
const SEED = process.env.FC_SEED ? FC_SEED : 4801;

function same(c: Case, horizonMs?: number): void {
  const spy = vi.spyOn(ReadSteps.prototype, 'idle');
  const fast = run(c, true, horizonMs);
  for (const r of spy.mock.results) if (r.value === true) applied++;
  spy.mockRestore();
  const full = run(c, false, horizonMs);
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
    fc.assert(
      fc.property(aCase(quiet), (c) => same(c)),
      { ...seeded({ numRuns: 250 }), seed: SEED },
    );
    // the shortcut is taken, not only refused: 8,878–13,424 over seeds 1–4 and 4801
    expect(applied).toBeGreaterThan(4000);
  }, 120_000);

  it('busy keys: early syncs, other holders pushing between the reads', () => {
    applied = 0;
    fc.assert(
      fc.property(aCase(busy), (c) => same(c)),
      { ...seeded({ numRuns: 250 }), seed: SEED },
    );
    // 560–791 over seeds 1–4
    expect(applied).toBeGreaterThan(200);
  }, 120_000);

  it('mixed keys, W = 1–40 Δ: late pushes due within the horizon, or not', () => {
    applied = 0;
    fc.assert(
      fc.property(aCase(mixed, true), (c) => same(c)),
      { ...seeded({ numRuns: 300 }), seed: SEED },
    );
    expect(applied).toBeGreaterThan(200);
  }, 120_000);

  it('replies listing expiries within Δ only (as the simulator asks): the same', () => {
    // the replay's gateways ask for min(W, 4Δ), whose view lists every expiry up to a gateway's next
    // sync for the first reads after it: those are taken for idle before another holder's push, or
    // at the run's end (AdaptiveEarlyKey.listsBefore), and only a shorter horizon shows what the run's
    // quiet check guards
    fc.assert(
      fc.property(aCase(mixed, true), (c) => same(c, c.syncMs)),
      { ...seeded({ numRuns: 300 }), seed: SEED },
    );
    for (const c of PUSHED_LATER) same(c, c.syncMs);
  }, 120_000);

  it('an early sync before another holder pushes in the run reads in full (ReadSteps quietFrom)', () => {
    same(earlyBeforePush(), 250);
  });

  // found by the property with the guard dropped (seeds 1–3): each fails without its guard
  it('a gateway with a late push due within the horizon reads in full (SyncedKey.idleSyncStart)', () => {
    same(LATE_DUE);
    expect(grouped(LATE_DUE_CHUNKED, 1, true)).toEqual(grouped(LATE_DUE_CHUNKED, 1, false));
  });

  it('after a chunk is undone, no read is taken for idle on the ticks it left (ReadSteps.rollback)', () => {
    const undone = vi.spyOn(ReplayFleet.prototype, 'rollback');
    for (const c of UNDONE) expect(grouped(c, 2, true)).toEqual(grouped(c, 2, false));
    expect(undone).toHaveBeenCalled();
  });

  it('checked chunks (undone and decided again in time order): the same decisions and figures', () => {
    const undone = vi.spyOn(ReplayFleet.prototype, 'rollback');
    fc.assert(
      fc.property(fc.oneof(aCase(busy), aCase(mixed, true)), fc.integer({ min: 1, max: 200 }), (c, chunk) => {
        expect(grouped(c, chunk, true)).toEqual(grouped(c, chunk, false));
      }),
      { ...seeded({ numRuns: 300 }), seed: SEED },
    );
    // chunks undone (ReadSteps.rollback's epoch reached): 254–286 over seeds 1–4
    expect(undone.mock.calls.length).toBeGreaterThan(50);
  }, 120_000);
});
