// The worst-window targets of issues 21 and 31 for one design at every limit: L per sliding 60 s
// (default 100, 300 and 1,000), Δ = 1 s unless said, fixed seeds; prints markdown tables
// (docs/worst-window.md).
// Usage: npx tsx scripts/worst-window.ts [design] [--seeds N] [--limits 100,300,1000] [--ks 2,8,32]
//   [--floods 1.5,3,…] [--reads every-sync|on-request] [--routing even|uneven]
//   [--sections worst,honest,pulsed,cost,mean]
// (default adaptive-early, 10 seeds, sections worst,honest,pulsed,cost; ~20 min on one core, about
// twice that with --reads on-request). --reads goes to every run, the central log's and the shared
// counter's beside it too (it changes only the lazy synced designs: decision 0013). "mean": the mean
// admitted per window under 10-min floods (adaptive's bound column).
import { worstWindowTarget as worstTarget } from '../src/advise/small-limit.js';
import type { DesignId } from '../src/config.js';
import { DESIGNS } from '../src/designs/index.js';
import { READS_MODES, type ReadsMode } from '../src/gateway/options.js';
import { ONSET_AFTER_WINDOWS } from '../src/sim/engine/traffic.js';
import { runSimulation } from '../src/sim/engine.js';
import type { Attack, RunMetrics, RunParams } from '../src/sim/types.js';

const args = process.argv.slice(2);
const design = (args.find((a, i) => !a.startsWith('--') && !args[i - 1]?.startsWith('--')) ??
  'adaptive-early') as DesignId;
const flag = (name: string) => {
  const at = args.indexOf(name);
  return at >= 0 ? args[at + 1] : undefined;
};
const list = (name: string, dflt: number[]) => flag(name)?.split(',').map(Number) ?? dflt;
const nSeeds = Number(flag('--seeds') ?? 10);
const seeds = Array.from({ length: nSeeds }, (_, i) => i + 1);
const FLOODS = list('--floods', [1.5, 3, 10, 30, 100, 300, 1000]);
const KS = list('--ks', [2, 8, 32]);
const LIMITS = list('--limits', [100, 300, 1000]);
const reads = (flag('--reads') ?? 'every-sync') as ReadsMode;
if (!READS_MODES.includes(reads)) throw new Error(`--reads: one of ${READS_MODES.join(', ')}`);
const routing = (flag('--routing') ?? 'even') as 'even' | 'uneven';
const sections = new Set((flag('--sections') ?? 'worst,honest,pulsed,cost').split(','));
const base = {
  syncS: 1,
  windowS: 60,
  windowKind: 'sliding',
  alignedSyncs: false,
  routing,
  // set only away from the default, as `fleetlimit sim --reads`: a default run's params are as before
  ...(reads === 'every-sync' ? {} : { reads }),
} as const;
const t0 = performance.now();

const runs = (p: Omit<RunParams, 'seed'>): RunMetrics[] => seeds.map((seed) => runSimulation({ ...p, seed }));
const mean = (a: number[]) => a.reduce((x, y) => x + y, 0) / a.length;
const f2 = (x: number) => x.toFixed(2);
const signed = (x: number) => `${x >= 0 ? '+' : '−'}${Math.abs(x).toFixed(2)}`;

const readsNote = `${reads === 'every-sync' ? '' : `; reads ${reads}`}${routing === 'even' ? '' : `; ${routing} routing`}`;
console.log(
  `## ${design}: worst-window targets (${nSeeds} seeds each; L per 60 s: ${LIMITS.join(', ')}${readsNote})\n`,
);

// 1. The worst window at a flood's onset: on an empty key (the flood alone, from t = 0) and on a busy
// key (an honest client at 80 %, the flood from t = 2W on), spread evenly and sent to one gateway.
// On a busy key, the local bound beside them: a design that decides ≥ 99 % of requests locally, on a
// view up to Δ + delay old, and keeps honest rejections within 0.5 pp of the central log's, must
// admit a request at a gateway that has admitted nothing since its last sync while its view shows
// headroom (it may be an honest client's lone request). At a fast flood's onset every gateway's
// first flood request comes before its next sync, so each passes beyond what the views show: the
// window holds at least n₀ + k, n₀ the admits in the window when the flood comes (all honest), k the
// gateways the flood reaches (K spread evenly, 1 sent to one). Per seed, max(L, n₀ + k)/L (a flood
// fills the window to L in the central log too: below L the argument adds nothing); n₀ from the
// same runs cut at the onset (the arrivals and decisions before it do not depend on the flood's rate
// or the run's length). "over": the most a seed's worst window at 1,000× exceeds its own bound (at
// 1,000× every gateway's first flood request comes within ~20 ms of the onset at K = 32; slower
// floods reach fewer gateways before their next sync, and the bound is not the whole story there).
console.log('### Worst window, × L (the most over seeds; mean in brackets): target by L/K (bold: over it)\n');
console.log(
  `| L | K | target | key | attack | ${FLOODS.map((f) => `${f}×`).join(' | ')} | local bound (over) |`,
);
console.log(`|---|---|---|---|---|${FLOODS.map(() => '---').join('|')}|---|`);
const label = (extra: Partial<RunParams>) =>
  extra.storeDelayMs ? ` (store ${extra.storeDelayMs} ms)` : extra.syncS ? ` (Δ = ${extra.syncS} s)` : '';
let worstAll = 0;
let worstWhere = '';
/** the most a cell exceeds its target (≤ 0: every cell within) */
let overTarget = Number.NEGATIVE_INFINITY;
let overWhere = '';
/** The empty-key runs' mean admitted per window (after the first W), × L, per seed: section "mean". */
const meanRows: {
  L: number;
  K: number;
  attack: Attack;
  load: number;
  extra: Partial<RunParams>;
  per: number[];
}[] = [];
/** Per seed, max(L, n₀ + k)/L: n₀ the admits in the window [onset − W, onset) of the busy-key run `p`. */
const localBounds = (p: Omit<RunParams, 'seed'>): number[] => {
  const onsetMin = (ONSET_AFTER_WINDOWS * p.windowS) / 60;
  const reached = p.attack === 'pick' ? 1 : p.gateways;
  return seeds.map((seed) => {
    const upTo = (minutes: number) => runSimulation({ ...p, seed, minutes }).admitted;
    return Math.max(p.limit, upTo(onsetMin) - upTo(onsetMin - p.windowS / 60) + reached) / p.limit;
  });
};
const worstCase = (L: number, K: number, key: string, attack: Attack, extra: Partial<RunParams> = {}) => {
  const target = worstTarget(L, K);
  const cells: string[] = [];
  let bounds: number[] | null = null;
  let over = Number.NEGATIVE_INFINITY;
  for (const load of FLOODS) {
    const p: Omit<RunParams, 'seed'> =
      key === 'empty'
        ? { ...base, ...extra, limit: L, design, gateways: K, traffic: 'flood', load, attack, minutes: 4 }
        : {
            ...base,
            ...extra,
            limit: L,
            design,
            gateways: K,
            traffic: 'onset',
            load: 0.8,
            floodLoad: load,
            attack,
            minutes: 4,
          };
    const rs = runs(p);
    const w = rs.map((r) => r.worstWindow);
    if (key === 'empty')
      meanRows.push({ L, K, attack, load, extra, per: rs.map((r) => r.admittedPerWindow) });
    if (key === 'busy') {
      bounds ??= localBounds(p);
      if (load === 1000) for (let i = 0; i < w.length; i++) over = Math.max(over, w[i] - bounds[i]);
    }
    const m = Math.max(...w);
    const where = `L = ${L}, K = ${K}, ${key} key, ${attack}, ${load}×${label(extra)}`;
    if (m > worstAll) {
      worstAll = m;
      worstWhere = where;
    }
    // the figures are printed to two places: a cell is over its target when its printed figure is
    const bad = target !== null && Number(f2(m)) > target;
    if (target !== null && m - target > overTarget) {
      overTarget = m - target;
      overWhere = where;
    }
    cells.push(`${bad ? '**' : ''}${f2(m)}${bad ? '**' : ''} (${f2(mean(w))})`);
  }
  const bound = bounds === null ? '—' : `${f2(Math.max(...bounds))} (${f2(mean(bounds))}) (${signed(over)})`;
  const t = target === null ? '— (n₀ + K)' : `≤ ${target}`;
  console.log(`| ${L} | ${K}${label(extra)} | ${t} | ${key} | ${attack} | ${cells.join(' | ')} | ${bound} |`);
};
const L0 = LIMITS[0];

function worstSection(): void {
  for (const L of LIMITS)
    for (const K of KS)
      for (const key of ['empty', 'busy'])
        for (const attack of ['even', 'pick'] as const) worstCase(L, K, key, attack);
  // a slow store and a short Δ, at the first limit
  for (const K of [8, 32])
    for (const key of ['empty', 'busy'])
      worstCase(L0, K, key, 'even', { storeDelayMs: 10, storeJitterMs: 5 });
  for (const K of [8, 32]) for (const key of ['empty', 'busy']) worstCase(L0, K, key, 'even', { syncS: 0.1 });
  console.log(`\nWorst of all: ${f2(worstAll)} × L (${worstWhere}).`);
  console.log(
    overTarget > 0
      ? `Over its target by ${f2(overTarget)} × L at most (${overWhere}).\n`
      : `Every cell with a target within it (closest: ${signed(overTarget)} × L, ${overWhere}).\n`,
  );
}

const opsRatio: number[] = [];
// 2. Honest clients at 80 %: rejections against the central log's (120 minutes, as the scorecard).
function honestSection(): void {
  console.log("### Honest clients at 80 %: rejections − central-log's, pp (target ≤ +0.5)\n");
  console.log('| L | K | steady even | steady uneven | page-load even | page-load uneven |');
  console.log('|---|---|---|---|---|---|');
  let honestWorst = Number.NEGATIVE_INFINITY;
  for (const L of LIMITS)
    for (const K of KS) {
      const cells: string[] = [];
      for (const traffic of ['steady', 'pageload'] as const)
        for (const routing of ['even', 'uneven'] as const) {
          const p = { ...base, limit: L, gateways: K, traffic, load: 0.8, routing, minutes: 120 };
          const mine = runs({ ...p, design });
          const ref = runs({ ...p, design: 'central-log' });
          const sc = runs({ ...p, design: 'shared-counter' });
          const d = mean(mine.map((r) => r.rejectedPct)) - mean(ref.map((r) => r.rejectedPct));
          honestWorst = Math.max(honestWorst, d);
          cells.push(Number(d.toFixed(2)) > 0.5 ? `**${signed(d)}**` : signed(d));
          opsRatio.push(mean(mine.map((r) => r.storeOpsPerSec)) / mean(sc.map((r) => r.storeOpsPerSec)));
        }
      console.log(`| ${L} | ${K} | ${cells.join(' | ')} |`);
    }
  console.log(`\nAt most ${signed(honestWorst)} pp.`);
}

// 3. A pulsed flood (1,000× for 2 s every 120 s) on an honest client at 80 %: its rejections against
// the central log's (30 minutes).
function pulsedSection(): void {
  console.log(
    `\n### Pulsed flood at L = ${L0}: the honest client's rejections, × central-log's (target ≤ 2)\n`,
  );
  console.log('| K | design % | central-log % | ratio |');
  console.log('|---|---|---|---|');
  for (const K of KS) {
    const p = {
      ...base,
      limit: L0,
      gateways: K,
      traffic: 'pulsed' as const,
      load: 0.8,
      floodLoad: 1000,
      minutes: 30,
    };
    const mine = mean(runs({ ...p, design }).map((r) => r.honestRejectedPct));
    const ref = mean(runs({ ...p, design: 'central-log' }).map((r) => r.honestRejectedPct));
    console.log(`| ${K} | ${f2(mine)} | ${f2(ref)} | ${ref > 0 ? f2(mine / ref) : '—'} |`);
  }
}

// 4. Cost: request-path round trips, store operations against the shared counter's (honest clients
// above), and syncs per gateway per second under floods (the early-sync bucket's cap).
function costSection(): void {
  const early = DESIGNS[design].earlySyncs;
  const cap = 1 + (early?.perSync ?? 0);
  let floodSyncs = 0;
  let floodWhere = '';
  let trips = 0;
  for (const K of [8, 32])
    for (const load of [10, 1000])
      for (const attack of ['even', 'pick'] as const) {
        const r = runs({
          ...base,
          limit: L0,
          design,
          gateways: K,
          traffic: 'flood',
          load,
          attack,
          minutes: 10,
        });
        const perGw = mean(r.map((x) => x.syncs)) / K / 600;
        trips = Math.max(trips, ...r.map((x) => x.roundTripsPerRequest));
        if (perGw > floodSyncs) {
          floodSyncs = perGw;
          floodWhere = `K = ${K}, ${load}× ${attack}`;
        }
      }
  console.log('\n### Cost\n');
  console.log(`- request-path round trips: ${(100 * trips).toFixed(2)} % of requests at most (target ≤ 1 %)`);
  console.log(
    `- store operations, honest clients (every L and K above): ${opsRatio.length ? f2(Math.max(...opsRatio)) : '— (section honest not run)'} × shared-counter's at most (target ≤ 1.2)`,
  );
  console.log(
    `- syncs per gateway per second under floods (10 min, L = ${L0}): ${f2(floodSyncs)} at most (${floodWhere}); cap ${cap} per Δ = 1 s over time${early ? ` (+ a burst of ${early.burst})` : ''}`,
  );
}

// 5. The mean admitted per window under a sustained flood (adaptive's bound column, docs/designs.md):
// the empty-key runs of section 1 (the flood alone from t = 0, 4 min, the mean after the first W).
function meanSection(): void {
  console.log(
    '\n### Sustained floods: mean admitted per window, × L (the most over floods; over seeds: mean, worst)\n',
  );
  console.log('| L | K | attack | mean | worst seed | at |');
  console.log('|---|---|---|---|---|---|');
  const groups = new Map<string, typeof meanRows>();
  for (const r of meanRows) {
    const k = `| ${r.L} | ${r.K}${label(r.extra)} | ${r.attack}`;
    groups.set(k, [...(groups.get(k) ?? []), r]);
  }
  for (const [k, rows] of groups) {
    const top = rows.reduce((a, b) => (mean(b.per) > mean(a.per) ? b : a));
    const worstSeed = Math.max(...rows.flatMap((r) => r.per));
    console.log(`${k} | ${f2(mean(top.per))} | ${f2(worstSeed)} | ${top.load}× |`);
  }
}

if (sections.has('worst') || sections.has('mean')) worstSection();
if (sections.has('honest')) honestSection();
if (sections.has('pulsed')) pulsedSection();
if (sections.has('cost')) costSection();
if (sections.has('mean')) meanSection();
console.log(`\n(${((performance.now() - t0) / 1000).toFixed(0)} s)`);
