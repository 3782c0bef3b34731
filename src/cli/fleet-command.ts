import type { Command } from 'commander';
import { DESIGN_IDS } from '../config.js';
import { runFleet } from '../fleet/run.js';
import { arrivalRate, type FleetSettings, type FloodSettings } from '../fleet/settings.js';
import { formatComparison } from '../fleet/table.js';
import { READS_MODES } from '../gateway/options.js';
import { ONSET_AFTER_WINDOWS } from '../sim/engine.js';
import { parseInjection } from './inject-flag.js';
import { addOptions, DESIGN_OPTION, type OptionRow, REPEATABLE, ROUTING_OPTION } from './option-table.js';
import { limitPerWindow, millis, num, oneOf, seconds, UsageError } from './parse.js';

export interface FleetFlags {
  design: string;
  gateways: string;
  limit: string;
  window?: string;
  sync: string;
  /** default: flood with one key, steady with --keys */
  traffic?: string;
  /** default: 100 with one key, 0.8 with --keys (the hottest key at 80 % of L) */
  load?: string;
  routing: string;
  duration: string;
  redis?: string;
  inject: string[];
  seed: string;
  simSeeds: string;
  storeTimeout: string;
  warmup: string;
  autoGateways?: boolean;
  scale?: string[];
  keys?: string;
  popularity?: string;
  /** onset traffic: the flood's rate; with --flood-keys: each flooded key's flood (× L per W, default 100) */
  floodLoad?: string;
  /** flood and onset traffic: even or pick */
  attack?: string;
  floodKeys?: string;
  floodPick?: string;
  expiryMargin?: string;
  reads?: string;
  json?: boolean;
}

/** `--popularity zipf:S`: the exponent of the keys' Zipf popularity (S ≥ 0; 0 is uniform). */
function popularity(raw: string): number {
  const m = /^zipf:(.+)$/.exec(raw);
  if (m === null) throw new UsageError('--popularity', `expected zipf:S, e.g. zipf:0.8, got "${raw}"`);
  const v = Number(m[1]);
  if (m[1].trim() === '' || !Number.isFinite(v) || v < 0 || v > 10)
    throw new UsageError('--popularity', `S must be a number from 0 to 10, got "${m[1]}"`);
  return v;
}

/** --keys N, --popularity zipf:S and the --flood-* flags → settings.keys, or undefined for the one-key run. */
function manyKeys(f: FleetFlags): FleetSettings['keys'] {
  if (f.keys === undefined) {
    for (const [flag, v] of [
      ['--popularity', f.popularity],
      ['--flood-keys', f.floodKeys],
      // (--flood-load without --keys is --traffic onset's: checked in fleetSettings)
      ['--flood-pick', f.floodPick],
      ['--expiry-margin', f.expiryMargin],
    ] as const) {
      if (v !== undefined) throw new UsageError(flag, 'needs --keys N');
    }
    return undefined;
  }
  const count = num('--keys', f.keys, { integer: true, min: 1, max: 1_000_000 });
  const keys = { count, popularity: f.popularity === undefined ? 1 : popularity(f.popularity) };
  const flood = floodOf(f, count);
  return flood === undefined ? keys : { ...keys, flood };
}

/** --flood-keys M (default none), --flood-load X (× L per W per flooded key, default 100), --flood-pick hot|random. */
function floodOf(f: FleetFlags, count: number): FloodSettings | undefined {
  const keys =
    f.floodKeys === undefined ? 0 : num('--flood-keys', f.floodKeys, { integer: true, min: 0, max: count });
  if (keys === 0) {
    if (f.floodLoad !== undefined)
      throw new UsageError('--flood-load', 'needs --traffic onset, or --flood-keys M (M ≥ 1) with --keys');
    if (f.floodPick !== undefined) throw new UsageError('--flood-pick', 'needs --flood-keys M (M ≥ 1)');
    return undefined;
  }
  return {
    keys,
    load: num('--flood-load', f.floodLoad ?? '100', { positive: true }),
    pick: oneOf('--flood-pick', f.floodPick ?? 'hot', ['hot', 'random'] as const),
  };
}

/** Only loopback Redis: a live run sends real load, and it must never be aimed at another machine. */
function loopbackRedis(raw: string): string {
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    throw new UsageError('--redis', `expected a URL like redis://127.0.0.1:6379, got "${raw}"`);
  }
  if (u.protocol !== 'redis:') throw new UsageError('--redis', `expected a redis:// URL, got "${raw}"`);
  const host = u.hostname.replace(/^\[|\]$/g, '');
  if (!(host === 'localhost' || host === '::1' || /^127\.\d+\.\d+\.\d+$/.test(host))) {
    throw new UsageError('--redis', `must be a loopback address (127.0.0.1, localhost), got ${u.hostname}`);
  }
  return raw;
}

/** `--scale K@T`: from T (seconds, or 10s, 1m…) of the run on, K gateway processes are live. */
function scaleStep(raw: string, durationS: number): { atMs: number; gateways: number } {
  const m = /^(\d+)@(.+)$/.exec(raw);
  if (m === null) throw new UsageError('--scale', `expected K@T, e.g. 16@10s, got "${raw}"`);
  const gateways = num('--scale', m[1], { integer: true, min: 1, max: 32 });
  const atS = seconds('--scale', m[2]);
  if (!(atS > 0 && atS < durationS))
    throw new UsageError(
      '--scale',
      `the instant must fall within the run (0 to ${durationS} s), got "${raw}"`,
    );
  return { atMs: atS * 1000, gateways };
}

function warmup(raw: string): number {
  const ms = millis('--warmup', raw, 's');
  if (ms > 60_000) throw new UsageError('--warmup', `must be at most 60 s, got "${raw}"`);
  return ms;
}

/** Flags → settings, with errors that name the flag. */
export function fleetSettings(f: FleetFlags): FleetSettings {
  const { limit, windowS } = limitPerWindow(f.limit, f.window, 6, { max: 1_000_000, maxWindowS: 3600 });
  const syncS = seconds('--sync', f.sync);
  if (syncS > windowS)
    throw new UsageError('--sync', `must not exceed --window (${windowS} s), got ${syncS}`);
  if (syncS < 0.01)
    throw new UsageError('--sync', `must be at least 0.01 s (timers are not finer), got ${syncS}`);
  const durationS = seconds('--duration', f.duration);
  if (durationS > 600) throw new UsageError('--duration', `must be at most 600 s, got ${durationS} s`);
  if (durationS <= windowS) {
    throw new UsageError(
      '--duration',
      `must exceed --window (${windowS} s): windows after the first are measured`,
    );
  }
  const keys = manyKeys(f);
  const traffic = oneOf('--traffic', f.traffic ?? (keys === undefined ? 'flood' : 'steady'), [
    'steady',
    'pageload',
    'flood',
    'onset',
  ] as const);
  const onset = traffic === 'onset';
  // an onset's --load is the honest client's before the flood: 0 is an empty key
  const load = num('--load', f.load ?? (onset ? '0' : keys === undefined ? '100' : '0.8'), {
    positive: !onset,
    min: 0,
  });
  if (keys !== undefined && (traffic === 'flood' || onset))
    throw new UsageError('--traffic', 'with --keys, each key gets its honest client: use steady or pageload');
  // (with --keys, --flood-load is the flooded keys' flood: checked with --flood-keys, see floodOf)
  if (f.floodLoad !== undefined && !onset && keys === undefined)
    throw new UsageError('--flood-load', 'needs --traffic onset, or --flood-keys M (M ≥ 1) with --keys');
  const floodLoad = onset ? num('--flood-load', f.floodLoad ?? '100', { positive: true }) : undefined;
  if (f.attack !== undefined && traffic !== 'flood' && !onset)
    throw new UsageError('--attack', 'needs --traffic flood or onset');
  const attack = f.attack === undefined ? undefined : oneOf('--attack', f.attack, ['even', 'pick'] as const);
  if (onset && durationS < (ONSET_AFTER_WINDOWS + 1) * windowS)
    throw new UsageError(
      '--duration',
      `with --traffic onset must be at least ${ONSET_AFTER_WINDOWS + 1} windows (${(ONSET_AFTER_WINDOWS + 1) * windowS} s): ` +
        `the flood comes on after ${ONSET_AFTER_WINDOWS} and its first window is measured`,
    );
  const rate = arrivalRate({ load: load + (floodLoad ?? 0), limit, windowMs: windowS * 1000, keys });
  if (rate > 20_000) {
    throw new UsageError(
      onset ? '--flood-load' : '--load',
      `asks for ${Math.round(rate)} req/s; one load process sends at most 20,000 (lower --load or --limit, or raise --window)`,
    );
  }
  const inject = f.inject.map(parseInjection);
  for (const i of inject) {
    if (i.kind === 'down' && i.atMs >= durationS * 1000)
      throw new UsageError('--inject', `down starts at ${i.atMs / 1000} s, after the run's ${durationS} s`);
  }
  if (inject.filter((i) => i.kind === 'loss').length > 1)
    throw new UsageError('--inject', 'give loss at most once');
  const scale = (f.scale ?? []).map((x) => scaleStep(x, durationS));
  for (let i = 1; i < scale.length; i++) {
    if (scale[i].atMs <= scale[i - 1].atMs) throw new UsageError('--scale', 'give the steps in time order');
  }
  if (scale.length > 0 && f.routing !== 'even')
    throw new UsageError('--scale', 'spreads the load evenly over the live gateways: use --routing even');
  // set only away from the default, as sim's and replay's --reads: a default run's settings are as before
  const reads = oneOf('--reads', f.reads ?? 'every-sync', READS_MODES);
  return {
    design: oneOf('--design', f.design, DESIGN_IDS),
    gateways: num('--gateways', f.gateways, { integer: true, min: 1, max: 32 }),
    limit,
    windowMs: windowS * 1000,
    syncMs: syncS * 1000,
    traffic,
    load,
    routing: oneOf('--routing', f.routing, ['even', 'uneven'] as const),
    durationMs: durationS * 1000,
    redisUrl: f.redis === undefined ? null : loopbackRedis(f.redis),
    inject,
    seed: num('--seed', f.seed, { integer: true, min: 0 }),
    simSeeds: num('--sim-seeds', f.simSeeds, { integer: true, min: 1, max: 1000 }),
    storeTimeoutMs: millis('--store-timeout', f.storeTimeout),
    warmupMs: Number(f.warmup) === 0 ? 0 : warmup(f.warmup),
    ...(f.autoGateways === true ? { autoGateways: true } : {}),
    ...(scale.length > 0 ? { scale } : {}),
    ...(keys !== undefined ? { keys } : {}),
    ...(floodLoad !== undefined ? { floodLoad } : {}),
    ...(attack !== undefined ? { attack } : {}),
    ...(f.expiryMargin !== undefined ? { expiryMarginMs: expiryMargin(f.expiryMargin) } : {}),
    ...(reads === 'every-sync' ? {} : { reads }),
  };
}

function expiryMargin(raw: string): number {
  const ms = millis('--expiry-margin', raw, 's');
  if (!(ms > 0 && ms <= 3_600_000))
    throw new UsageError('--expiry-margin', `must be above 0 and at most 1 h, got "${raw}"`);
  return ms;
}

/** fleet's options, in the order --help lists them. */
const FLEET_OPTIONS: readonly OptionRow[] = [
  DESIGN_OPTION,
  ['--gateways <K>', 'gateway processes (1–32)', '8'],
  ['--limit <L[/W]>', 'admits per window, or L per window W as in 100/6s', '100'],
  [
    '--window <duration>',
    'window W: 6s, 1m… (a bare number is seconds; default 6 s, compressed time for a 60-second setting)',
  ],
  ['--sync <duration>', 'sync interval Δ: 100ms, 1s… (a bare number is seconds)', '0.1'],
  [
    '--traffic <kind>',
    'steady, pageload, flood or onset (the --load client, then a --flood-load flood from 2 W on; default: flood; steady with --keys)',
  ],
  [
    '--load <multiple>',
    "arrival rate as a multiple of the limit (100 = 100 × L per W; with --keys, the hottest key's; default 100, 0.8 with --keys)",
  ],
  ROUTING_OPTION,
  [
    '--flood-load <multiple>',
    "--traffic onset: the flood's rate; with --flood-keys: the flood on each flooded key (× L per W, default 100)",
  ],
  ['--attack <kind>', 'flood and onset: the flood spread evenly (even) or sent to one gateway (pick)'],
  [
    '--duration <duration>',
    'how long the load runs: 20s, 2m… (a bare number is seconds; at most 600 s)',
    '20',
  ],
  ['--redis <url>', 'a loopback Redis to use (default: start a private redis-server)'],
  [
    '--inject <fault>',
    'latency=20ms | loss=5% | down=2s@10s between the gateways and Redis (repeatable)',
    REPEATABLE,
  ],
  ['--seed <s>', 'seed of the load arrivals', '1'],
  ['--sim-seeds <n>', 'simulator seeds to average', '10'],
  ['--store-timeout <duration>', "the runtime's storeTimeoutMs: 200ms, 1s… (a bare number is ms)", '200'],
  ['--warmup <duration>', 'the same traffic on a key of its own before the measured run (0: none)', '1'],
  ['--auto-gateways', "configure the gateways with gateways: 'auto' (the store counts them) instead of K"],
  [
    '--scale <K@T>',
    'from T on, K gateway processes are live: 16@10s starts 8 more at 10 s, 4@20s stops some (repeatable)',
    REPEATABLE,
  ],
  ['--keys <N>', 'spread the requests over N keys (1–1,000,000) by --popularity, as the simulator does'],
  ['--popularity <zipf:S>', 'key popularity with --keys: rank r ∝ 1/r^S (default zipf:1)'],
  ['--flood-keys <M>', 'with --keys: keys flooded on top of their honest traffic (default 0)'],
  ['--flood-pick <kind>', 'with --flood-keys: hot (the M most popular keys) or random (default hot)'],
  [
    '--expiry-margin <duration>',
    "with --keys: the gateways' RedisStore expiryMarginMs: 500ms, 5s… (a bare number is seconds; default 5 s)",
  ],
  [
    '--reads <mode>',
    'when a quiet key is read, live and in the simulator: every-sync (default) or on-request (GatewayOptions.reads; the lazy synced designs read it only after a request)',
  ],
  ['--json', 'print { live, sim, settings } as JSON'],
];

export function addFleetCommand(program: Command): void {
  addOptions(
    program
      .command('fleet')
      .description(
        'run K gateway processes on Redis under real HTTP load and compare them with the simulator',
      ),
    FLEET_OPTIONS,
  ).action(async (f: FleetFlags) => {
    const settings = fleetSettings(f);
    const ac = new AbortController();
    const onSigint = () => ac.abort();
    process.once('SIGINT', onSigint);
    try {
      const r = await runFleet(settings, {
        signal: ac.signal,
        log: (line) => process.stderr.write(`fleet: ${line}\n`),
      });
      if (f.json) {
        const { live, sim, settings: s } = r;
        process.stdout.write(`${JSON.stringify({ live, sim, settings: s }, null, 2)}\n`);
      } else process.stdout.write(formatComparison(r));
    } finally {
      process.off('SIGINT', onSigint);
    }
    if (ac.signal.aborted) process.exitCode = 130;
  });
}
