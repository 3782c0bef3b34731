/**
 * npm run bench [-- --quick] [-- --json] [-- --full-study] [-- --only decision|sync|http|sidecar|sim|replay|refund] | npm run bench -- --render FILE.json:
 * the four benchmarks of issue 7 and replay's speed (issue 33), each figure measured side by side with its peer in the same run,
 * repeated, medians and ratios; writes bench/results/latest.md, latest.json and full.json (quick:
 * quick.md, quick.json) with the machine and its load average. --json prints the result object (one line) instead of the Markdown.
 * Starts one private redis-server on a free loopback port and stops it by its PID.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { startRedisServer } from '../src/fleet/redis-server.js';
import { benchDecision } from './decision.js';
import { benchHttp } from './http.js';
import { BENCH_PARTS, type BenchPart } from './parts.js';
import { benchRefund, renderRefund } from './refund.js';
import { benchReplay, parseShape, type ReplayBench, replayTable } from './replay.js';
import {
  type BenchResult,
  decisionTargets,
  missingKeys,
  renderDecisionOnly,
  renderHttp,
  renderMarkdown,
  renderSyncOnly,
  shapeResult,
  syncTargets,
} from './report.js';
import { benchSidecar, renderSidecar } from './sidecar.js';
import { benchSimulator, simTable } from './sim.js';
import { benchSync } from './sync.js';
import { describeMachine } from './util.js';

const argv = process.argv.slice(2);
const args = new Set(argv);
const quick = args.has('--quick');
const json = args.has('--json');
const log = (s: string) => {
  if (!json || args.has('--verbose'))
    process.stderr.write(`[bench ${new Date().toISOString().slice(11, 19)}] ${s}\n`);
};

// replay: absent from results saved before it was measured
type Result = BenchResult & {
  wallSeconds: number;
  partSeconds: Record<string, number>;
  replay?: ReplayBench;
};

/** Full runs write latest.{md,json} and full.json; quick runs quick.{md,json}, leaving the full table be. */
function writeOutputs(result: Result): string {
  const replay = result.replay === undefined ? '' : `\n## Replay speed\n\n${replayTable(result.replay)}`;
  const md = `${renderMarkdown(result, simTable(result.sim))}${replay}\nWall time of the whole bench: ${result.wallSeconds.toFixed(0)} s (${Object.entries(
    result.partSeconds,
  )
    .map(([k, v]) => `${k} ${v.toFixed(0)} s`)
    .join(', ')}).\n`;
  const base = result.quick ? 'bench/results/quick' : 'bench/results/latest';
  mkdirSync('bench/results', { recursive: true });
  writeFileSync(`${base}.json`, `${JSON.stringify(result, null, 2)}\n`);
  writeFileSync(`${base}.md`, md);
  if (!result.quick) writeFileSync('bench/results/full.json', `${JSON.stringify(result, null, 2)}\n`);
  return md;
}

// --render FILE: the Markdown again from a saved result, without measuring anything
const renderAt = argv.indexOf('--render');
if (renderAt >= 0) {
  const saved = JSON.parse(readFileSync(argv[renderAt + 1], 'utf8')) as Result;
  saved.targets = shapeResult(saved).targets;
  process.stdout.write(writeOutputs(saved));
  process.exit(0);
}

const command = `npm run bench${argv.length > 0 ? ` -- ${argv.join(' ')}` : ''}`;
const machine = describeMachine();
const t0 = Date.now();

// --only PART: one part alone, written to bench/results/PART.{md,json} (quick: PART-quick.{md,json}).
// decision (a few minutes), sync (a minute, with its floor; --no-redis-benchmark leaves out the
// redis-benchmark peers), http (a few minutes, its own redis-server), sidecar (a minute, beside a
// per-request central service on Redis), sim (the simulator's speed; --full-study for the whole grid),
// replay [--design ID ...] [--shape K/ROUTE ...] (default 1 and 4/random; several minutes for every design), refund (every design on MemoryStore
// and Redis, a few minutes). decision writes decision.* even when quick, as it always has.
const onlyAt = argv.indexOf('--only');
const loadNow = () => loadavg().map((x) => Math.round(x * 100) / 100);
const header = (title: string) =>
  `# ${title}\n\nProduced by \`${command}\` on ${machine.date.slice(0, 16)} (${machine.cpu}, ${machine.cores} cores, Node ${machine.node}; load average ${machine.loadStart.join(' ')} → ${machine.loadEnd?.join(' ') ?? '?'}).\n\n`;

/** Writes one part's result and Markdown, prints one of them, and exits. */
function finishPart(base: string, result: object, md: string): never {
  const full = `${md}\nWall time: ${((Date.now() - t0) / 1000).toFixed(0)} s.\n`;
  mkdirSync('bench/results', { recursive: true });
  writeFileSync(`bench/results/${base}.json`, `${JSON.stringify(result, null, 2)}\n`);
  writeFileSync(`bench/results/${base}.md`, full);
  process.stdout.write(json ? `${JSON.stringify(result)}\n` : full);
  process.exit(0);
}

/** Runs `f` beside a private redis-server, stopped by its PID whatever happens. */
async function withRedis<T>(
  f: (redis: Awaited<ReturnType<typeof startRedisServer>>) => Promise<T>,
): Promise<T> {
  const redis = await startRedisServer();
  try {
    return await f(redis);
  } finally {
    await redis.stop();
  }
}

const PARTS: Record<BenchPart, () => Promise<never>> = {
  async decision() {
    log('decision cost');
    const decision = await benchDecision({ quick, log });
    machine.loadEnd = loadNow();
    const result = { machine, quick, command, decision, targets: decisionTargets(decision) };
    return finishPart('decision', result, renderDecisionOnly(result));
  },
  async sync() {
    log('redis-server + sync cost');
    const redisBenchmark = !args.has('--no-redis-benchmark');
    const sync = await withRedis((redis) => benchSync({ quick, port: redis.port, redisBenchmark }));
    machine.loadEnd = loadNow();
    const result = { machine, quick, command, sync, targets: syncTargets(sync) };
    return finishPart(quick ? 'sync-quick' : 'sync', result, renderSyncOnly(result));
  },
  async http() {
    log('redis-server + http');
    const http = await withRedis((redis) => benchHttp({ quick, redisPort: redis.port, redisPid: redis.pid }));
    machine.loadEnd = loadNow();
    const result = { machine, quick, command, http };
    const md = `${header('HTTP: the middleware beside per-request limiters')}${renderHttp(http).join('\n')}`;
    return finishPart(quick ? 'http-quick' : 'http', result, md);
  },
  async sidecar() {
    log('sidecar');
    const warmAt = argv.indexOf('--sidecar-warm');
    const warmSeconds = warmAt >= 0 ? Number(argv[warmAt + 1]) : undefined;
    if (warmSeconds !== undefined && !(warmSeconds >= 0))
      throw new Error(`--sidecar-warm: seconds ≥ 0, got ${argv[warmAt + 1]}`);
    const sidecar = await benchSidecar({ quick, log, warmSeconds });
    machine.loadEnd = loadNow();
    const result = { machine, quick, command, sidecar };
    const md = `${header('Sidecar: decisions beside a per-request central service')}${renderSidecar(sidecar)}`;
    return finishPart(quick ? 'sidecar-quick' : 'sidecar', result, md);
  },
  async sim() {
    log('simulator');
    const sim = benchSimulator({ quick, full: args.has('--full-study') });
    machine.loadEnd = loadNow();
    const result = { machine, quick, command, sim };
    return finishPart(quick ? 'sim-quick' : 'sim', result, `${header('Simulator speed')}${simTable(sim)}\n`);
  },
  async replay() {
    const designs = argv.flatMap((a, i) => (argv[i - 1] === '--design' ? [a] : []));
    const shapes = argv.flatMap((a, i) => (argv[i - 1] === '--shape' ? [parseShape(a)] : []));
    const replay = await benchReplay({
      quick,
      log,
      designs: designs.length > 0 ? designs : undefined,
      shapes: shapes.length > 0 ? shapes : undefined,
    });
    machine.loadEnd = loadNow();
    const result = { machine, quick, command, replay };
    return finishPart(
      quick ? 'replay-quick' : 'replay',
      result,
      `${header('Replay speed')}${replayTable(replay)}`,
    );
  },
  async refund() {
    const refund = await benchRefund({ quick, log });
    machine.loadEnd = loadNow();
    const result = { machine, quick, command, refund };
    const md = `${header('Refunds: requests taken back beside requests counted')}${renderRefund(refund)}`;
    return finishPart(quick ? 'refund-quick' : 'refund', result, md);
  },
};
if (onlyAt >= 0) {
  const only = argv[onlyAt + 1];
  if (!(BENCH_PARTS as readonly string[]).includes(only))
    throw new Error(
      `--only: the parts that run alone are ${BENCH_PARTS.map((p) => `'${p}'`).join(', ')}, got ${only}`,
    );
  await PARTS[only as BenchPart]();
}

const partSeconds: Record<string, number> = {};
let tPart = Date.now();
const part = (name: string) => {
  partSeconds[name] = (Date.now() - tPart) / 1000;
  tPart = Date.now();
};
log('decision cost');
const decision = await benchDecision({ quick, log });
part('decision');
log('redis-server + sync cost');
const redis = await startRedisServer();
let sync: Awaited<ReturnType<typeof benchSync>>;
let http: Awaited<ReturnType<typeof benchHttp>>;
try {
  sync = await benchSync({ quick, port: redis.port });
  part('sync');
  log('http');
  http = await benchHttp({ quick, redisPort: redis.port, redisPid: redis.pid });
  part('http');
} finally {
  await redis.stop();
}
log('simulator');
const sim = benchSimulator({ quick, full: args.has('--full-study') });
part('sim');
log('replay');
const replay = await benchReplay({ quick, log });
part('replay');
machine.loadEnd = loadavg().map((x) => Math.round(x * 100) / 100);
const result: Result = {
  ...shapeResult({ machine, quick, command, decision, sync, http, sim }),
  wallSeconds: (Date.now() - t0) / 1000,
  partSeconds,
  replay,
};
const missing = missingKeys(result);
if (missing.length > 0) throw new Error(`bench result is missing ${missing.join(', ')}`);
const md = writeOutputs(result);
log(`done in ${result.wallSeconds.toFixed(0)} s`);
process.stdout.write(json ? `${JSON.stringify(result)}\n` : md);
