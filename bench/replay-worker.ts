/**
 * One design's replay speed in a fresh process (what `replay.ts` starts, one per design and round, so
 * no design's code shapes another's JIT state): RUNS times, the readers alone on FILE (openArrivals, counting
 * arrivals), then the whole replay of FILE through DESIGN against the central log (readers + engine,
 * one gateway, 100 per minute, Δ = 1 s), each timed in this process's CPU time and in wall time. Both
 * read FILE with the command's defaults (--spread uniform: bench/replay-settings.mjs).
 * Prints one JSON line (a ReplaySample). READS (default every-sync) is the gateways' `reads` option
 * (`fleetlimit replay --reads`).
 *
 * WARMFILE, if given, is replayed once first, untimed (steady state). GATEWAYS (default 1) and ROUTE
 * (default hash) split the log over K gateways, as `fleetlimit replay --gateways K --route ROUTE`
 * does; the readers alone then route too.
 *
 *   node --import tsx bench/replay-worker.ts FILE FORMAT DESIGN RUNS [READS] [WARMFILE] [GATEWAYS] [ROUTE]
 */
import type { ReadsMode } from '../src/gateway/options.js';
import { openArrivals } from '../src/replay/parse/index.js';
import { replay } from '../src/replay/run/engine.js';
import { benchReadOptions, benchReplaySettings } from './replay-settings.mjs';

export interface ReplaySample {
  design: string;
  /** The gateways' reads option; absent in samples saved before it was measured (every-sync). */
  reads?: ReadsMode;
  /** K, and the route the log was split by (K > 1); absent in samples saved before K > 1 was measured (1). */
  gateways?: number;
  route?: string;
  lines: number;
  /** Lines per CPU-second of this process (a shared machine's other load does not lower it), per run. */
  parseCpu: number[];
  parseWall: number[];
  endToEndCpu: number[];
  endToEndWall: number[];
}

const [file, format, design, runsArg, readsArg, warmArg, gatewaysArg, routeArg] = process.argv.slice(2);
const runs = Number(runsArg ?? 3);
const reads = (readsArg ?? 'every-sync') as ReadsMode;
// '' (an argument given only to reach the next ones): no warm-up
const warmFile = warmArg === '' ? undefined : warmArg;
const gateways = Number(gatewaysArg ?? 1);
const route = routeArg ?? 'hash';
const readOptions = () => benchReadOptions(format, gateways, route);

/** Lines per second of CPU and of wall time for one call. */
async function timed(f: () => Promise<number>): Promise<{ lines: number; cpu: number; wall: number }> {
  const t0 = performance.now();
  const c0 = process.cpuUsage();
  const lines = await f();
  const c = process.cpuUsage(c0);
  const wall = (performance.now() - t0) / 1000;
  return { lines, cpu: lines / ((c.user + c.system) / 1e6), wall: lines / wall };
}

const out: ReplaySample = {
  design,
  reads,
  gateways,
  ...(gateways > 1 ? { route } : {}),
  lines: 0,
  parseCpu: [],
  parseWall: [],
  endToEndCpu: [],
  endToEndWall: [],
};
/** The readers alone on `f`: its arrivals, counted. */
async function parseOnly(f: string): Promise<number> {
  const src = openArrivals([f], readOptions());
  let n = 0;
  for await (const _ of src.arrivals) n++;
  const s = src.stats();
  if (n !== s.lines) throw new Error(`read ${n} arrivals of ${s.lines} lines`);
  return n;
}

/** The whole replay of `f` through DESIGN against the central log: its arrivals. */
async function wholeReplay(f: string): Promise<number> {
  const settings = benchReplaySettings([design], reads, gateways);
  return (await replay(openArrivals([f], readOptions()), settings)).arrivals;
}

// Steady state: both paths run once, untimed, on WARMFILE (a shorter log of the same kind), so the
// timed runs do not pay the JIT's first compiles, which a long log amortizes
if (warmFile !== undefined) {
  await parseOnly(warmFile);
  await wholeReplay(warmFile);
}
for (let r = 0; r < runs; r++) {
  const parse = await timed(() => parseOnly(file));
  const whole = await timed(async () => {
    const n = await wholeReplay(file);
    if (n !== parse.lines) throw new Error(`replayed ${n} of ${parse.lines}`);
    return n;
  });
  out.lines = parse.lines;
  out.parseCpu.push(parse.cpu);
  out.parseWall.push(parse.wall);
  out.endToEndCpu.push(whole.cpu);
  out.endToEndWall.push(whole.wall);
}
process.stdout.write(`${JSON.stringify(out)}\n`);
