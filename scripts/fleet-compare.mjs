// npm run fleet:compare — the live fleet against the simulator on the settings the README reports:
// runs them one after another (never in parallel: the machine is the measuring instrument), prints
// each side-by-side table and writes the summary table to docs/fleet-compare.md.
// Usage: npm run fleet:compare [-- --only NAME,NAME] [-- --duration 24 (the W = 6 s runs)] [-- --scale 0.6 (every run's duration)]
import { writeFileSync } from 'node:fs';
import { runFleet } from '../dist/fleet/run.js';
import { formatComparison, settingsLine } from '../dist/fleet/table.js';

const args = process.argv.slice(2);
const flag = (name) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : undefined;
};
const durationMs = Number(flag('--duration') ?? 24) * 1000;
const scale = Number(flag('--scale') ?? 1);
const only = flag('--only')?.split(',');

// W = 6 s, Δ = 0.1 s: a 60-second window with 1-second syncs, ten times faster. Runs last a whole
// number of windows: floods admit in bursts that recur every W, so a partial last window biases the
// per-window mean (the simulator's as much as the live one's).
const base = {
  limit: 100,
  windowMs: 6000,
  syncMs: 100,
  traffic: 'flood',
  load: 100,
  routing: 'even',
  durationMs,
  redisUrl: null,
  inject: [],
  seed: 1,
  simSeeds: 20,
  storeTimeoutMs: 200,
};
// The setting the issue asks for (K = 8, Δ/W = 1/60, a 100× flood) at W = 6 s needs 1,667 req/s; on
// a busy 2-core machine the load falls behind, so the same setting also runs at W = 30 s, Δ = 0.5 s:
// 333 req/s, and the same arrivals per gateway per sync (λΔ/K = load · L · (Δ/W) / K = 20.8), the
// figure shared-counter's over-admission follows. Only the absolute time scale differs.
const slow = { windowMs: 30_000, syncMs: 500, durationMs: 3 * 30_000 };
const runs = [
  { name: 'shared-counter-k8-w6', design: 'shared-counter', gateways: 8 },
  { name: 'shared-counter-k8-w30', design: 'shared-counter', gateways: 8, ...slow },
  {
    name: 'shared-counter-k8-w30-latency50',
    design: 'shared-counter',
    gateways: 8,
    ...slow,
    inject: [{ kind: 'latency', ms: 50 }],
  },
  {
    name: 'shared-counter-k8-w30-latency50-timeout1000',
    design: 'shared-counter',
    gateways: 8,
    ...slow,
    inject: [{ kind: 'latency', ms: 50 }],
    storeTimeoutMs: 1000,
  },
  { name: 'leases-ask-k8-w30', design: 'leases-ask', gateways: 8, ...slow },
].filter((r) => only === undefined || only.includes(r.name));

const f = (v, d) => v.toFixed(d);
const pct = (live, sim) =>
  sim !== 0 ? ` (${live >= sim ? '+' : '−'}${f(Math.abs((100 * (live - sim)) / sim), 1)} %)` : '';
const rows = [];
const notes = [];
const ac = new AbortController();
process.once('SIGINT', () => ac.abort());
for (const { name, ...over } of runs) {
  const settings = { ...base, ...over };
  settings.durationMs = Math.round(settings.durationMs * scale);
  process.stderr.write(`\n== ${name}\n`);
  let r;
  try {
    r = await runFleet(settings, { signal: ac.signal, log: (l) => process.stderr.write(`fleet: ${l}\n`) });
  } catch (err) {
    // one run failing (a busy machine, Ctrl-C) still leaves the others' rows
    process.stderr.write(`${name} failed: ${err.message}\n`);
    rows.push(`| ${name} | failed: ${err.message} |  |  |  |  |  |  |  |`);
    if (ac.signal.aborted) break;
    continue;
  }
  process.stdout.write(`\n${formatComparison(r)}`);
  const { live: l, sim: s } = r;
  const single =
    l.roundTripsPerRequestSingleFlight !== l.roundTripsPerRequest
      ? `; ${f(l.roundTripsPerRequestSingleFlight, 4)}${pct(l.roundTripsPerRequestSingleFlight, s.roundTripsPerRequest)} without overlapping asks`
      : '';
  rows.push(
    `| ${name} | ${f(l.admittedPerWindow, 3)} / ${f(s.admittedPerWindow, 3)}${pct(l.admittedPerWindow, s.admittedPerWindow)} ` +
      `| ${f(l.worstWindow, 2)} / ${f(s.worstWindow, 2)} | ${l.windowsOverLimit} / ${f(s.windowsOverLimit, 1)} ` +
      `| ${f(l.rejectedPct, 2)} / ${f(s.rejectedPct, 2)} ` +
      `| ${f(l.roundTripsPerRequest, 4)} / ${f(s.roundTripsPerRequest, 4)}${pct(l.roundTripsPerRequest, s.roundTripsPerRequest)}${single} ` +
      `| ${Math.round(l.arrivals.achievedPerS)} / ${Math.round(l.arrivals.nominalPerS)} ` +
      `| ${f(l.sync.latency.p50, 0)} / ${f(l.sync.latency.p99, 0)} (${l.sync.timeouts + l.sync.errors} failed, ${l.sync.degradedDecisions} degraded) ` +
      `| ${f(l.latency.addedByGateway.p50, 1)} |`,
  );
  notes.push(`- ${name}: ${settingsLine(r)}`);
}

const md = [
  '<!-- written by npm run fleet:compare; do not edit -->',
  `Live fleet vs simulator, ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC, simulator ${base.simSeeds} seeds. Each cell is live / sim.`,
  '',
  '| run | admitted per window (× L) | worst window (× L) | windows over L | rejected % | store calls per request | req/s sent / asked | sync ms p50 / p99 | added by gateway, p50 ms |',
  '| --- | --- | --- | --- | --- | --- | --- | --- | --- |',
  ...rows,
  '',
  ...notes,
  '',
].join('\n');
writeFileSync('docs/fleet-compare.md', md);
process.stdout.write(`\n${md}\nwritten to docs/fleet-compare.md\n`);
