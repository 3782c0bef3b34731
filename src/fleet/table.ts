import { DESIGNS } from '../designs/index.js';
import { describeInjection } from './inject.js';
import type { FleetResult } from './run.js';
import { floodOnset, maxGateways } from './settings.js';

const int = (v: number) => Math.round(v).toLocaleString('en-US');
const fix = (v: number, d: number) => v.toFixed(d);
const ms = (v: number) => `${v.toFixed(2)} ms`;

type Row = [string, string, string, string];

/** A figure live beside the simulator's and their difference; blank where the simulator has none. */
function vsRow(label: string, live: number, sim: number | undefined, digits: number): Row {
  return sim === undefined
    ? [label, fix(live, digits), '', '']
    : [label, fix(live, digits), fix(sim, digits), diff(live, sim, digits)];
}

function diff(live: number, sim: number, digits: number): string {
  const d = live - sim;
  const sign = d >= 0 ? '+' : '−';
  const rel = sim !== 0 ? ` (${d >= 0 ? '+' : '−'}${Math.abs((100 * d) / sim).toFixed(1)} %)` : '';
  return `${sign}${Math.abs(d).toFixed(digits)}${rel}`;
}

/**
 * The latency lines: percentiles of what the load process measured, and the median the gateway adds.
 * Only the median: a difference of two p99s is no percentile of anything (it printed below the p50).
 */
export function latencyLines(l: FleetResult['live']['latency']): string[] {
  return [
    `latency       via gateway p50 ${ms(l.viaGateway.p50)} / p99 ${ms(l.viaGateway.p99)}; admitted p50 ${ms(l.admittedViaGateway.p50)} / p99 ${ms(l.admittedViaGateway.p99)}; ` +
      `direct to upstream p50 ${ms(l.direct.p50)} / p99 ${ms(l.direct.p99)}`,
    `              the gateway adds ${ms(l.addedByGateway.p50)} at the median (admitted via a gateway minus direct)`,
  ];
}

/** One line of settings, as the table's title. */
export function settingsLine(r: FleetResult): string {
  const s = r.settings;
  const inject = s.inject.length > 0 ? `, inject ${s.inject.map(describeInjection).join(' + ')}` : '';
  const timeout = s.storeTimeoutMs !== 200 ? `, store timeout ${s.storeTimeoutMs} ms` : '';
  // gateways joining and stopping mid-run (the simulator column keeps K fixed at the start's count)
  const scale = (s.scale ?? []).map((x) => ` → ${x.gateways} at ${x.atMs / 1000} s`).join('');
  const k =
    s.autoGateways === true || scale !== ''
      ? `${s.autoGateways === true ? 'auto, ' : ''}${s.gateways} gateways${scale}`
      : `${s.gateways}`;
  const onset = floodOnset(s);
  const traffic =
    onset === undefined
      ? `${s.traffic} at ${s.load}×${s.attack === 'pick' ? ' to one gateway' : ''} (${int(s.arrivalRatePerS)} req/s)`
      : `onset: ${s.load > 0 ? `an honest client at ${s.load}× (${int(s.arrivalRatePerS)} req/s)` : 'an empty key'}, ` +
        `then a ${onset.load}× flood ${onset.pick ? 'to one gateway' : 'spread'} from ${onset.atMs / 1000} s`;
  return (
    `${s.design}: K = ${k}, L = ${s.limit} per ${s.windowMs / 1000} s, Δ = ${s.syncMs / 1000} s ` +
    `(Δ/W = 1/${+(s.windowMs / s.syncMs).toFixed(2)}), ${traffic}, ` +
    `${s.routing} routing, ${s.durationMs / 1000} s${inject}${timeout}` +
    (s.keys !== undefined
      ? `, ${int(s.keys.count)} keys at zipf ${s.keys.popularity} (the hottest at ${s.load}×)` +
        (s.keys.flood !== undefined && s.keys.flood.keys > 0
          ? `, ${int(s.keys.flood.keys)} ${s.keys.flood.pick} key(s) flooded at ${s.keys.flood.load}× each`
          : '')
      : '') +
    (s.reads !== undefined ? `, reads ${s.reads}` : '')
  );
}

/** The side-by-side table and the live-only figures, as plain text. */
export function formatComparison(r: FleetResult): string {
  if (r.live.keys !== undefined) return formatManyKeys(r, r.live.keys);
  const { live, sim } = r;
  const rows: Row[] = [
    ['', 'live', `sim (${sim.seeds} seeds)`, 'live − sim'],
    // an onset run is for this figure: the worst window in the first W after the flood comes on
    ...(r.settings.traffic === 'onset'
      ? [vsRow('onset: worst window in the first W (× L)', live.onsetWorst, sim.onsetWorst, 3)]
      : []),
    vsRow('admitted per window (× L)', live.admittedPerWindow, sim.admittedPerWindow, 3),
    vsRow('worst window (× L)', live.worstWindow, sim.worstWindow, 3),
    vsRow('rejected %', live.rejectedPct, sim.rejectedPct, 2),
    vsRow('store calls per request', live.roundTripsPerRequest, sim.roundTripsPerRequest, 4),
    // the runtime keeps one ask in flight per key: an overlapping ask is worth a line of its own
    ...(live.roundTripsPerRequestSingleFlight !== live.roundTripsPerRequest
      ? [
          [
            '  without overlapping asks',
            fix(live.roundTripsPerRequestSingleFlight, 4),
            '',
            diff(live.roundTripsPerRequestSingleFlight, sim.roundTripsPerRequest, 4),
          ] as Row,
        ]
      : []),
    [
      'windows over L',
      int(live.windowsOverLimit),
      fix(sim.windowsOverLimit, 1),
      diff(live.windowsOverLimit, sim.windowsOverLimit, 1),
    ],
    // a window over L has L + 1 admits less than W apart: by how much less says whether a clock
    // error of that size explains it (0 when no window is over L)
    ['  clock error that would explain them (ms)', fix(live.overLimitByMs, 1), '', ''],
    ['timed at the upstream instead of the gateway:', '', '', ''],
    ['  worst window (× L)', fix(live.byArrival.worstWindow, 3), '', ''],
    ...(r.settings.traffic === 'onset'
      ? [['  onset: worst window in the first W (× L)', fix(live.byArrival.onsetWorst, 3), '', ''] as Row]
      : []),
    ['  windows over L', int(live.byArrival.windowsOverLimit), '', ''],
    ['  clock error that would explain them (ms)', fix(live.byArrival.overLimitByMs, 1), '', ''],
    ['requests', int(live.requests), int(sim.requests), diff(live.requests, sim.requests, 0)],
    ['admitted', int(live.admitted), fix(sim.admitted, 1), diff(live.admitted, sim.admitted, 1)],
  ];
  const lines = tableLines(rows);
  lines.push('', ...detailLines(r));
  return `${settingsLine(r)}\n${lines.join('\n')}\n`;
}

function tableLines(rows: Row[]): string[] {
  const widths = [0, 1, 2, 3].map((c) => Math.max(...rows.map((row) => row[c].length)));
  return rows.map((row) =>
    row.map((cell, c) => (c === 0 ? cell.padEnd(widths[c]) : cell.padStart(widths[c]))).join('   '),
  );
}

/**
 * Many keys: what the key population costs, live beside the simulator's many-keys mode. The
 * single-key window figures are left out: over many keys the upstream's log is no one key's windows.
 */
function formatManyKeys(r: FleetResult, k: NonNullable<FleetResult['live']['keys']>): string {
  const { live, sim } = r;
  const simOr = (v: number | undefined, d: number) => (v === undefined ? '' : fix(v, d));
  const vs = (l: number, v: number | undefined, d: number) => (v === undefined ? '' : diff(l, v, d));
  const simBytesPerKey =
    sim.bytesPerGateway !== undefined && sim.keysPerGateway
      ? sim.bytesPerGateway / sim.keysPerGateway
      : undefined;
  const rows: Row[] = [
    ['', 'live', `sim (${sim.seeds} seeds)`, 'live − sim'],
    vsRow('key-syncs per second', k.keySyncsPerSec, sim.syncKeysPerSec, 0),
    vsRow('keys held per gateway', k.heldKeysPerGateway, sim.keysPerGateway, 0),
    vsRow('gateway heap per held key (B)', k.heapBytesPerHeldKey, simBytesPerKey, 0),
    [
      'keys in Redis at the end',
      int(k.redis.userKeys),
      simOr(sim.storeKeys, 0),
      vs(k.redis.userKeys, sim.storeKeys, 0),
    ],
    ['Redis MEMORY USAGE per key (B)', fix(k.redis.bytesPerKeySampled, 0), '', ''],
    ['Redis used_memory growth per key (B)', fix(k.redis.usedMemoryPerKey, 0), '', ''],
    ['Redis CPU (cores)', fix(k.redis.cpuShare, 3), '', ''],
    vsRow(
      k.floodedKeys > 0 ? 'honest rejected % on unflooded keys' : 'rejected % (no key flooded)',
      k.unfloodedRejectedPct,
      sim.unfloodedRejectedPct,
      3,
    ),
    ['requests', int(live.requests), int(sim.requests), diff(live.requests, sim.requests, 0)],
  ];
  if (k.floodedKeys > 0) rows.push(['flood requests rejected %', fix(k.floodRejectedPct, 2), '', '']);
  const idle = k.idle;
  const gone =
    idle.goneAtMs === null
      ? `${int(idle.left)} still there ${fix((idle.samples[idle.samples.length - 1]?.atMs ?? 0) / 1000, 1)} s after the last admit`
      : `all gone ${fix(idle.goneAtMs / 1000, 2)} s after the last admit`;
  const curve = idle.samples.map((x) => `${fix(x.atMs / 1000, 0)} s: ${int(x.records)}`).join(', ');
  const lines = tableLines(rows);
  lines.push(
    '',
    `keys          sim heap per key is the simulator's model (KEY_BYTES); MEMORY USAGE over ${int(k.redis.sampledKeys)} keys' records (${fix(k.redis.redisKeys / Math.max(1, k.redis.userKeys), 2)} Redis keys per key)`,
    `idle keys     ${int(idle.recordsAtStart)} records after the last syncs; ${gone} (bound: W + 2 × margin = ${fix(idle.boundMs / 1000, 2)} s, margin ${fix(idle.marginMs / 1000, 2)} s)`,
    `              records left: ${curve}`,
    ...detailLines(r),
  );
  return `${settingsLine(r)}\n${lines.join('\n')}\n`;
}

function detailLines(r: FleetResult): string[] {
  const { live } = r;
  const lines: string[] = [];
  const a = live.arrivals;
  const l = live.latency;
  const y = live.sync;
  const match = live.upstreamLogged === live.gatewaysAdmitted ? 'equal' : 'DIFFERENT';
  lines.push(
    `arrivals      ${int(a.achievedPerS)} req/s sent of ${int(a.scheduledPerS)} scheduled (${fix((100 * a.achievedPerS) / a.scheduledPerS, 1)} %; ` +
      `${int(a.nominalPerS)} asked, the seed's Poisson arrivals ${fix((100 * a.scheduledPerS) / a.nominalPerS, 1)} % of it); ` +
      `${fix(a.onTimePct, 1)} % on time (≤ ${a.lateAfterMs} ms late)`,
    `              send lag p50 ${ms(a.lag.p50)}, p99 ${ms(a.lag.p99)}, max ${ms(a.lag.max)}; not sent ${int(a.skipped)}, failed ${int(a.failed)}; ${int(a.connections)} connections`,
    ...latencyLines(l),
    `syncs         ${int(y.syncs)} answered, latency p50 ${ms(y.latency.p50)} / p99 ${ms(y.latency.p99)} / max ${ms(y.latency.max)}; ` +
      `failed ${int(y.timeouts)} timeouts + ${int(y.refusals)} refused + ${int(y.errors)} errors; request-path store failures ${int(y.storeCallFailures)}; degraded decisions ${int(y.degradedDecisions)}`,
    `forwarding    gateway admission → upstream arrival p50 ${ms(live.forwardDelay.p50)}, p99 ${ms(live.forwardDelay.p99)}, max ${ms(live.forwardDelay.max)}`,
    `upstream log  ${int(live.upstreamLogged)} requests; the gateways admitted ${int(live.gatewaysAdmitted)} (${match}; ${int(live.forwardErrors)} could not be forwarded)`,
    `store clock   each gateway's estimate off by at most ${ms(live.clockErrorMs)} (half its best recent round trip)` +
      (DESIGNS[r.settings.design].requestPath === 'ask'
        ? `; ${int(live.coalescedAsks)} requests waited on an ask in flight`
        : ''),
    `cpu           load ${fix(live.cpu.load, 2)}, gateways ${fix(live.cpu.gateways, 2)} (${maxGateways(r.settings)} processes), upstream ${fix(live.cpu.upstream, 2)} cores`,
  );
  if (live.inject !== null) {
    const i = live.inject;
    lines.push(
      `fault proxy   ${int(i.connections)} connections, ${int(i.lostReplies)} replies lost (each costing its connection), ${int(i.cuts)} cuts, down ${fix(i.downMs / 1000, 2)} s`,
    );
  }
  return lines;
}
