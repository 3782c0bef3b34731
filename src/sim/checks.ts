import { DESIGN_IDS } from '../config.js';
import { DESIGNS } from '../designs/index.js';
import { runSimulation } from './engine.js';
import { erlangB } from './erlang.js';
import type { CheckResult, RunParams, RunRow } from './types.js';

/**
 * The designs that sync lazily (push own admits, read the others'): with one gateway there are no
 * others, so each decides exactly as the log does.
 */
const LAZY_SYNCED = DESIGN_IDS.filter((d) => DESIGNS[d].syncs === 'lazy');

const base: RunParams = {
  design: 'central-log',
  gateways: 1,
  syncS: 1,
  limit: 100,
  windowS: 60,
  windowKind: 'sliding',
  alignedSyncs: false,
  traffic: 'steady',
  load: 0.8,
  routing: 'even',
  minutes: 300,
  seed: 1,
};

function meanAndSe(xs: number[]): { mean: number; se: number } {
  const n = xs.length;
  const mean = xs.reduce((a, b) => a + b, 0) / n;
  const v = n > 1 ? xs.reduce((a, b) => a + (b - mean) ** 2, 0) / (n - 1) : 0;
  return { mean, se: Math.sqrt(v / n) };
}

/**
 * The central log serves a steady Poisson client at 80 % of L = 100 per W at the Erlang loss rate:
 * served = 1 − B(100, 80). Passes if the simulated rejection lies within 3 standard errors (from the
 * spread over seeds) of B.
 */
export function checkErlang(seeds = 5, minutes = 300): CheckResult {
  const rejected: number[] = [];
  for (let s = 1; s <= seeds; s++) {
    const r = runSimulation({ ...base, minutes, seed: s });
    rejected.push(r.rejectedPct / 100);
  }
  const { mean, se } = meanAndSe(rejected);
  const b = erlangB(100, 80);
  const passed = Math.abs(mean - b) <= 3 * se + 1e-12;
  return {
    name: 'central-log rejects a steady client at 80 % at the Erlang loss rate B(100, 80)',
    passed,
    detail: `simulated ${(100 * mean).toFixed(3)} % ± ${(100 * se).toFixed(3)} % (${seeds} seeds × ${minutes} min) vs B(100, 80) = ${(100 * b).toFixed(3)} %; served ${(100 * (1 - mean)).toFixed(3)} % vs ${(100 * (1 - b)).toFixed(3)} %`,
  };
}

/** With K = 1, shared-counter, assume-others, track-share and adaptive decide exactly like the central log, request by request. */
export function checkSingleGatewayEquivalence(minutes = 30): CheckResult {
  const cases: Partial<RunParams>[] = [
    { traffic: 'flood', load: 10, syncS: 1 },
    { traffic: 'steady', load: 0.8, syncS: 3 },
    { traffic: 'pageload', load: 0.8, syncS: 0.3 },
    { traffic: 'flood', load: 3, syncS: 0.1, windowKind: 'fixed' },
  ];
  let compared = 0;
  const mismatches: string[] = [];
  for (const c of cases) {
    for (const seed of [1, 2]) {
      const p = { ...base, ...c, minutes, seed, gateways: 1 };
      const want = runSimulation({ ...p, design: 'central-log' }, { recordDecisions: true }).decisions!;
      for (const design of LAZY_SYNCED) {
        const got = runSimulation({ ...p, design }, { recordDecisions: true }).decisions!;
        compared += got.length;
        const same = got.length === want.length && got.every((d, i) => d === want[i]);
        if (!same) mismatches.push(`${design} ${c.traffic} ×${c.load} seed ${seed}`);
      }
    }
  }
  return {
    name: 'with K = 1 shared-counter, assume-others, track-share and adaptive decide exactly like the central log',
    passed: mismatches.length === 0,
    detail:
      mismatches.length === 0
        ? `${compared} decisions compared request by request over ${cases.length} traffic cases × 2 seeds: identical`
        : `differ: ${mismatches.join('; ')}`,
  };
}

/** With aligned syncs and a fixed window, a heavy flood gets exactly K × L per window through shared-counter. */
export function checkAlignedFixedWindow(minutes = 20): CheckResult {
  const got: string[] = [];
  let passed = true;
  for (const gateways of [2, 8]) {
    const r = runSimulation({
      ...base,
      design: 'shared-counter',
      gateways,
      traffic: 'flood',
      load: 1000,
      windowKind: 'fixed',
      alignedSyncs: true,
      minutes,
    });
    got.push(`K = ${gateways}: ${r.admittedPerWindow} × L per window (worst ${r.worstWindow})`);
    if (Math.abs(r.admittedPerWindow - gateways) > 1e-9) passed = false;
  }
  return {
    name: 'aligned syncs and a fixed window: a heavy flood gets exactly K × L per window',
    passed,
    detail: `${got.join('; ')} (flood 1,000×, Δ = 1 s)`,
  };
}

/**
 * No lease design ever has more than L admitted in any W in any run, sync loss included: a lapsed
 * grant stays counted while what was spent from it could count, and a sync hands back only grants
 * made before it was built (docs/architecture.md, **leases**).
 */
export function checkLeaseViolations(rows: RunRow[]): CheckResult {
  const lease = rows.filter((r) => DESIGNS[r.design].grants);
  const violations = lease.reduce((a, r) => a + r.windowsOverLimit, 0);
  const worst = lease.reduce((a, r) => Math.max(a, r.worstWindow), 0);
  return {
    name: 'no lease design ever has more than L admitted in any window',
    passed: violations === 0,
    detail: `${violations} violations in ${lease.length} lease runs; worst window ${worst.toFixed(3)} × L`,
  };
}
