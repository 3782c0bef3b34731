import type { Command } from 'commander';
import { DESIGN_IDS } from '../config.js';
import { READS_MODES } from '../gateway/options.js';
import { isManyKeys, MANY_KEYS_DEFAULTS, runManyKeysSeeds, zipfTotal } from '../sim/many-keys.js';
import { runSeeds } from '../sim/run.js';
import type { RunParams } from '../sim/types.js';
import { addOptions, DESIGN_OPTION, type OptionRow, ROUTING_OPTION } from './option-table.js';
import { limitPerWindow, millis, num, oneOf, seconds, UsageError } from './parse.js';

export interface SimFlags {
  design: string;
  gateways: string;
  sync: string;
  limit: string;
  window?: string;
  windowKind: string;
  alignedSyncs?: boolean;
  traffic?: string;
  load?: string;
  routing: string;
  minutes: string;
  seeds?: string;
  seed?: string;
  json?: boolean;
  storeDelay?: string;
  storeJitter?: string;
  syncLoss?: string;
  attack?: string;
  floodLoad?: string;
  keys?: string;
  popularity?: string;
  floodKeys?: string;
  floodPick?: string;
  reads?: string;
}

/** `zipf:S` → S (rank r has weight 1/r^S). */
function popularityOf(raw: string): number {
  const m = /^zipf:(.+)$/.exec(raw.trim());
  if (m === null) throw new UsageError('--popularity', `expected zipf:S, e.g. zipf:1.2; got "${raw}"`);
  return num('--popularity', m[1], { min: 0, max: 10 });
}

/** The first of `flags` that is set, refused with `why` (flags in the order given). */
function refuseSet(flags: Record<string, unknown>, why: string): void {
  for (const [flag, v] of Object.entries(flags)) if (v !== undefined) throw new UsageError(flag, why);
}

/** The many-keys flags: with --keys N > 1 they join the parameters; without, they are refused. */
function manyKeysParams(f: SimFlags, params: Omit<RunParams, 'seed'>): void {
  const keys = num('--keys', f.keys ?? '1', { integer: true, min: 1, max: 1_000_000 });
  if (keys === 1) {
    refuseSet(
      { '--popularity': f.popularity, '--flood-keys': f.floodKeys, '--flood-pick': f.floodPick },
      'needs --keys N with N > 1',
    );
    return;
  }
  if (params.traffic !== 'steady' && params.traffic !== 'pageload') {
    throw new UsageError(
      '--traffic',
      `with --keys, the honest traffic of every key: steady or pageload (the flood is --flood-keys, --flood-load); got "${params.traffic}"`,
    );
  }
  refuseSet(
    {
      '--store-delay': params.storeDelayMs,
      '--store-jitter': params.storeJitterMs,
      '--sync-loss': params.syncLoss,
    },
    'not simulated with --keys',
  );
  params.keys = keys;
  params.popularity = popularityOf(f.popularity ?? `zipf:${MANY_KEYS_DEFAULTS.popularity}`);
  params.floodKeys = num('--flood-keys', f.floodKeys ?? String(MANY_KEYS_DEFAULTS.floodKeys), {
    integer: true,
    min: 0,
    max: keys,
  });
  params.floodLoad = num('--flood-load', f.floodLoad ?? String(MANY_KEYS_DEFAULTS.floodLoad), {
    positive: true,
  });
  params.floodPick = oneOf('--flood-pick', f.floodPick ?? MANY_KEYS_DEFAULTS.floodPick, [
    'hot',
    'random',
  ] as const);
}

/** Flags → run parameters, with errors that name the flag. */
export function simParams(f: SimFlags): { params: Omit<RunParams, 'seed'>; seeds: number[] } {
  const { limit, windowS } = limitPerWindow(f.limit, f.window, 60);
  const syncS = seconds('--sync', f.sync);
  // many keys default to an honest client on every key (the flood is its own flags)
  const many = f.keys !== undefined && Number(f.keys) > 1;
  if (syncS > windowS)
    throw new UsageError('--sync', `must not exceed --window (${windowS} s), got ${syncS}`);
  const traffic = oneOf('--traffic', f.traffic ?? (many ? 'steady' : 'flood'), [
    'steady',
    'pageload',
    'flood',
    'pulsed',
    'onset',
  ] as const);
  const params: Omit<RunParams, 'seed'> = {
    design: oneOf('--design', f.design, DESIGN_IDS),
    gateways: num('--gateways', f.gateways, { integer: true, min: 1, max: 64 }),
    syncS,
    limit,
    windowS,
    windowKind: oneOf('--window-kind', f.windowKind, ['sliding', 'fixed'] as const),
    alignedSyncs: f.alignedSyncs === true,
    traffic,
    // with many keys, --load 0 is a flood alone; with onset or pulsed traffic, a flood on an empty key
    load: num(
      '--load',
      f.load ?? (many ? '0.8' : '100'),
      many || traffic === 'onset' || traffic === 'pulsed' ? { min: 0 } : { positive: true },
    ),
    routing: oneOf('--routing', f.routing, ['even', 'uneven'] as const),
    minutes: num('--minutes', f.minutes, { positive: true, max: 100_000 }),
  };
  // the real-world options join the parameters only when set away from their defaults, so a plain run's
  // parameters (and its JSON) are what they always were
  const storeDelayMs =
    f.storeDelay === undefined || Number(f.storeDelay) === 0 ? 0 : millis('--store-delay', f.storeDelay);
  if (storeDelayMs !== 0) params.storeDelayMs = storeDelayMs;
  const storeJitterMs =
    f.storeJitter === undefined || Number(f.storeJitter) === 0 ? 0 : millis('--store-jitter', f.storeJitter);
  if (storeJitterMs !== 0) params.storeJitterMs = storeJitterMs;
  const syncLoss = num('--sync-loss', f.syncLoss ?? '0', { min: 0, max: 0.99 });
  if (syncLoss !== 0) params.syncLoss = syncLoss;
  const attack = oneOf('--attack', f.attack ?? 'even', ['even', 'pick'] as const);
  if (attack !== 'even') params.attack = attack;
  const reads = oneOf('--reads', f.reads ?? 'every-sync', READS_MODES);
  if (reads !== 'every-sync') params.reads = reads;
  if (params.traffic === 'pulsed' || params.traffic === 'onset')
    params.floodLoad = num('--flood-load', f.floodLoad ?? '1000', { positive: true });
  manyKeysParams(f, params);
  if (f.seed !== undefined && f.seeds !== undefined)
    throw new UsageError('--seed', 'give --seed or --seeds, not both');
  let seeds: number[];
  if (f.seed !== undefined) seeds = [num('--seed', f.seed, { integer: true, min: 0 })];
  else {
    const n = num('--seeds', f.seeds ?? '1', { integer: true, min: 1, max: 1000 });
    seeds = Array.from({ length: n }, (_, i) => i + 1);
  }
  return { params, seeds };
}

/** sim's options, in the order --help lists them. */
const SIM_OPTIONS: readonly OptionRow[] = [
  DESIGN_OPTION,
  ['--gateways <K>', 'gateways sharing the limit (1–64)', '8'],
  ['--sync <duration>', 'sync interval Δ: 250ms, 1s… (a bare number is seconds)', '1'],
  ['--limit <L[/W]>', 'admits per window, or L per window W as in 100/1m', '100'],
  ['--window <duration>', 'window W: 10s, 1m… (a bare number is seconds; default 60 s)'],
  ['--window-kind <kind>', 'sliding or fixed', 'sliding'],
  ['--aligned-syncs', 'all gateways sync at the same instants'],
  [
    '--traffic <kind>',
    'steady, pageload, flood, pulsed (honest client at --load + a --flood-load flood 2 s every 120 s) or onset (the honest client, then a flood from t = 2W); default flood, with --keys steady',
  ],
  [
    '--load <multiple>',
    "arrival rate as a multiple of the limit (0.8 = 80 %, 100 = a 100× flood); with --keys the hottest key's honest rate (key r gets load/r^S); default 100, with --keys 0.8",
  ],
  ROUTING_OPTION,
  ['--minutes <n>', 'simulated minutes', '20'],
  ['--seeds <n>', 'run seeds 1..n and report the mean'],
  ['--seed <s>', 'run this one seed'],
  [
    '--store-delay <duration>',
    'a sync reply (and a request-path call) arrives this many ms after it was sent',
    '0',
  ],
  ['--store-jitter <duration>', 'each round trip takes a uniform extra [0, jitter) (bare number: ms)', '0'],
  ['--sync-loss <p>', 'a sync reply is lost with probability p (half of those landed); resent whole', '0'],
  [
    '--attack <kind>',
    'even (the flood spread over every gateway) or pick (all of it to one gateway)',
    'even',
  ],
  [
    '--flood-load <multiple>',
    'the flood in pulsed and onset traffic, a multiple of the limit (default 1000); with --keys, on each flooded key (default 100)',
  ],
  [
    '--keys <N>',
    'simulate N keys (1–1,000,000) through the library gateways and one memory store: store cost and gateway memory',
  ],
  ['--popularity <zipf:S>', 'with --keys: key of rank r gets weight 1/r^S (default zipf:1)'],
  ['--flood-keys <M>', 'with --keys: keys flooded on top of their honest traffic (default 1; 0 = none)'],
  ['--flood-pick <kind>', 'with --keys: hot (the M most popular keys) or random (default hot)'],
  [
    '--reads <mode>',
    'when a quiet key is read: every-sync (default) or on-request (GatewayOptions.reads; the lazy synced designs read it only after a request)',
  ],
  ['--json', 'print one JSON object'],
];

export function addSimCommand(program: Command): void {
  addOptions(
    program.command('sim').description('simulate one setting on virtual time and print what it cost'),
    SIM_OPTIONS,
  ).action((f: SimFlags) => {
    const { params, seeds } = simParams(f);
    if (isManyKeys(params)) {
      printManyKeys(params, seeds, f.json === true);
      return;
    }
    const r = runSeeds(params, seeds);
    if (f.json) {
      process.stdout.write(
        `${JSON.stringify({ ...params, seeds, ...r.mean, perSeed: r.perSeed, version: r.version }, null, 2)}\n`,
      );
      return;
    }
    const m = r.mean;
    const lines = [
      `${params.design}: K = ${params.gateways}, Δ = ${params.syncS} s, L = ${params.limit} per ${params.windowS} s (${params.windowKind}${params.alignedSyncs ? ', aligned syncs' : ''})`,
      `traffic ${params.traffic} at ${params.load}× the limit, ${params.routing} routing, ${params.minutes} min × ${seeds.length} seed(s)`,
      `  admitted per window   ${m.admittedPerWindow.toFixed(3)} × L`,
      `  worst window          ${m.worstWindow.toFixed(3)} × L`,
      `  rejected              ${m.rejectedPct.toFixed(3)} %`,
      `  round trips/request   ${m.roundTripsPerRequest.toFixed(4)}`,
      `  latency on the store  ${m.latencyMs.toFixed(3)} ms per request`,
      `  store ops/s           ${m.storeOpsPerSec.toFixed(2)}`,
      ...(params.traffic === 'pulsed' || params.traffic === 'onset'
        ? [
            `  honest rejected       ${m.honestRejectedPct.toFixed(3)} %`,
            `  worst window at onset ${m.onsetWorst.toFixed(3)} × L`,
          ]
        : []),
      `  requests ${Math.round(m.requests)}, admitted ${Math.round(m.admitted)}, syncs ${Math.round(m.syncs)}`,
    ];
    process.stdout.write(`${lines.join('\n')}\n`);
  });
}

function printManyKeys(params: Omit<RunParams, 'seed'>, seeds: number[], json: boolean): void {
  const r = runManyKeysSeeds(params, seeds);
  if (json) {
    process.stdout.write(
      `${JSON.stringify({ ...params, seeds, ...r.mean, perSeed: r.perSeed, version: r.version }, null, 2)}\n`,
    );
    return;
  }
  const m = r.mean;
  const n = params.keys!;
  const s = params.popularity!;
  const honestPerSec = (params.load * params.limit * zipfTotal(n, s)) / params.windowS;
  const whole = (v: number) => Math.round(v).toLocaleString('en-US');
  const lines = [
    `${params.design}: K = ${params.gateways}, Δ = ${params.syncS} s, L = ${params.limit} per ${params.windowS} s (${params.windowKind}${params.alignedSyncs ? ', aligned syncs' : ''})`,
    `${whole(n)} keys, popularity zipf:${s}: ${params.traffic} honest traffic ${honestPerSec.toFixed(1)} req/s (hottest key at ${params.load}× the limit), ${params.routing} routing`,
    `flood: ${params.floodKeys} ${params.floodPick} key(s) at ${params.floodLoad}× the limit each, ${params.attack ?? 'even'}; ${params.minutes} min × ${seeds.length} seed(s)`,
    `  flooded keys: admitted per window ${m.admittedPerWindow.toFixed(3)} × L, worst window ${m.worstWindow.toFixed(3)} × L`,
    `  honest rejected       ${m.honestRejectedPct.toFixed(3)} %; on keys no flood hits ${m.unfloodedRejectedPct.toFixed(3)} % (all requests: ${m.rejectedPct.toFixed(3)} %)`,
    `  round trips/request   ${m.roundTripsPerRequest.toFixed(4)}`,
    `  store ops/s           ${m.storeOpsPerSec.toFixed(2)} (sync calls + request-path calls)`,
    `  keys carried/s        ${whole(m.syncKeysPerSec)} by syncs; ${whole(m.keyOpsPerSec)} with request-path calls`,
    `  keys per sync         ${m.keysPerSync.toFixed(1)} mean, ${whole(m.keysPerSyncMax)} most`,
    `  keys per gateway      ${m.keysPerGateway.toFixed(1)} mean, ${whole(m.keysPerGatewayMax)} most: ≈ ${(m.bytesPerGateway / 1024).toFixed(1)} KiB held`,
    `  keys in the store     ${m.storeKeys.toFixed(1)} mean, ${whole(m.storeKeysMax)} most`,
    `  requests ${whole(m.requests)}, admitted ${whole(m.admitted)}, syncs ${whole(m.syncs)}`,
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
}
