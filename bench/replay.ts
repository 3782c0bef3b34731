/**
 * `fleetlimit replay`'s speed (issue 33: 200,000 lines/s end to end for one design on one core,
 * beside the parse alone): writes one generated combined log (N lines, 10,000 client addresses, about
 * 2,000 lines per second of stamps, every 50th line's stamp 1-3 s behind as NGINX writes a slow
 * request's start, 5 % 429s), then in each of RUNS rounds, per design in turn, a fresh process
 * (replay-worker.ts) warms up on a log a fifth as long (untimed: steady state), then times once the
 * readers alone and the whole replay (readers + that design and the central log, one gateway,
 * 100 per minute, Δ = 1 s), the log read with `fleetlimit replay`'s defaults (--spread uniform).
 * Figures are lines per CPU-second of that process, min/median/max.
 * The designs whose reads can follow requests (Design.readsFollowRequests) run a second time with
 * `reads: 'on-request'` (`fleetlimit replay --reads on-request`), rows beside their default ones.
 * Every row is measured at each fleet shape asked for (REPLAY_SHAPES by default: one gateway, and
 * four with the log split by a seeded draw per line, as a load balancer spreads a key's requests):
 * a speed met at one gateway is not met at K.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DESIGN_IDS, type DesignId } from '../src/config.js';
import { DESIGNS } from '../src/designs/index.js';
import type { Arrival } from '../src/replay/arrival.js';
import { writeLog } from '../src/replay/parse/write-log.js';
import { Random } from '../src/sim/random.js';
import type { ReplaySample } from './replay-worker.js';
import { runTsChild } from './util.js';

export interface Spread {
  min: number;
  median: number;
  max: number;
}

/** K gateways, and how the one log is split over them (`fleetlimit replay --gateways K --route ROUTE`). */
export interface FleetShape {
  gateways: number;
  route?: 'hash' | 'random' | 'round-robin';
}

/** The bench's shapes by default: one gateway, and four with a key's requests spread at random. */
export const REPLAY_SHAPES: readonly FleetShape[] = [{ gateways: 1 }, { gateways: 4, route: 'random' }];

export interface ReplayBench {
  lines: number;
  runs: number;
  format: 'combined';
  /** The shapes measured; absent in results saved before K > 1 was measured (one gateway). */
  shapes?: FleetShape[];
  /** The readers alone: every design's process's runs together (one gateway's, or the first shape's). */
  parseCpu: Spread;
  /** The readers alone per shape after the first (the route's draws included), by shapeName. */
  parseCpuByShape?: Record<string, Spread>;
  /** Readers + design + central log, per design (`DESIGN --reads on-request` for the option's rows). */
  endToEndCpu: Record<string, Spread>;
  endToEndWall: Record<string, Spread>;
  samples: ReplaySample[];
}

/** The issue's target, end to end, lines per second on one core. */
export const REPLAY_TARGET = 200_000;

function* generated(n: number, addresses: number): Generator<Arrival> {
  const random = new Random(7);
  const t0 = Date.UTC(2026, 0, 5, 12, 0, 0);
  for (let i = 0; i < n; i++) {
    const behind = i % 50 === 0 ? 1000 + Math.floor(random.uniform() * 2000) : 0;
    const t = t0 + Math.floor(i / 2) - behind; // 2,000 per second
    const ip = Math.floor(random.uniform() * addresses);
    // the bench's own addresses as they always were; beyond 65,536, three bytes of the number
    const key =
      addresses <= 65_536
        ? `10.${(ip >> 8) & 255}.${ip & 255}.${(ip * 7) & 255}`
        : `10.${(ip >> 16) & 255}.${(ip >> 8) & 255}.${ip & 255}`;
    yield { t, key, gateway: 0, status: random.uniform() < 0.05 ? 429 : 200 };
  }
}

/**
 * Writes the bench's log (see the top of this file) of `lines` lines to `file`; `addresses` other than
 * 10,000 gives a log of busier keys (fewer) or a long tail of quiet ones (more), at the same rate.
 */
export async function writeBenchLog(file: string, lines: number, addresses = 10_000): Promise<void> {
  if (!Number.isInteger(addresses) || addresses < 1 || addresses > 16_777_216)
    throw new RangeError(`addresses: must be an integer in [1, 2^24], got ${addresses}`);
  await writeLog(file, generated(lines, addresses), { format: 'combined', tzOffsetMinutes: 60 });
}

/** A shape as the table names it: '' for one gateway, else `, K = 4, --route random`. */
export const shapeName = (s: FleetShape) =>
  s.gateways === 1 ? '' : `, K = ${s.gateways}, --route ${s.route ?? 'hash'}`;

/** A row's name: the design, the reads option when it is not the default, the shape. */
const rowName = (design: string, reads: string, shape: FleetShape) =>
  `${reads === 'every-sync' ? design : `${design} --reads ${reads}`}${shapeName(shape)}`;

/** Parses `--shape K/ROUTE` (or `K`): a FleetShape, or a clear error. */
export function parseShape(arg: string): FleetShape {
  const [k, route] = arg.split('/');
  const gateways = Number(k);
  if (!Number.isInteger(gateways) || gateways < 1)
    throw new Error(`--shape: K must be an integer ≥ 1, got "${arg}" (e.g. 4/random)`);
  if (gateways === 1) return { gateways };
  const r = route ?? 'hash';
  if (r !== 'hash' && r !== 'random' && r !== 'round-robin')
    throw new Error(`--shape: route must be hash, random or round-robin, got "${arg}"`);
  return { gateways, route: r };
}

function spread(xs: readonly number[]): Spread {
  const s = [...xs].sort((a, b) => a - b);
  return { min: s[0], median: s[Math.floor((s.length - 1) / 2)], max: s[s.length - 1] };
}

export async function benchReplay(opts: {
  quick: boolean;
  log: (s: string) => void;
  designs?: readonly string[];
  shapes?: readonly FleetShape[];
  lines?: number;
  runs?: number;
}): Promise<ReplayBench> {
  const lines = opts.lines ?? (opts.quick ? 300_000 : 1_000_000);
  const runs = opts.runs ?? 3;
  const designs = opts.designs ?? DESIGN_IDS;
  const shapes = opts.shapes ?? REPLAY_SHAPES;
  const dir = mkdtempSync(join(tmpdir(), 'fleetlimit-bench-replay-'));
  const file = join(dir, 'access.log');
  const warm = join(dir, 'warm.log');
  try {
    opts.log(`replay: writing ${lines.toLocaleString('en-US')} combined lines`);
    await writeBenchLog(file, lines);
    // each process first replays a fifth of it, untimed, so its timed run is in steady state
    await writeBenchLog(warm, Math.ceil(lines / 5));
    // per shape, each design by default, then the on-request rows of those the option changes
    const jobs = shapes.flatMap((shape) => [
      ...designs.map((d) => [d, 'every-sync', shape] as const),
      ...designs
        .filter((d) => DESIGNS[d as DesignId]?.readsFollowRequests === true)
        .map((d) => [d, 'on-request', shape] as const),
    ]);
    // Rounds, each running every job once in a fresh process: the designs interleave, so a load that
    // drifts over the minutes of the bench moves every row alike (run one after another, a falling
    // load once read as a 1.7× gap between two designs that differ by 9 % side by side).
    const byRow = new Map<string, ReplaySample>();
    for (let r = 0; r < runs; r++) {
      for (const [design, reads, shape] of jobs) {
        const row = rowName(design, reads, shape);
        opts.log(`replay ${row}, run ${r + 1} of ${runs}`);
        const one = await runTsChild<ReplaySample>(
          'bench/replay-worker.ts',
          [file, 'combined', design, '1', reads, warm, String(shape.gateways), shape.route ?? 'hash'],
          1_200_000,
        );
        const s = byRow.get(row);
        if (s === undefined) byRow.set(row, one);
        else
          for (const f of ['parseCpu', 'parseWall', 'endToEndCpu', 'endToEndWall'] as const)
            s[f].push(...one[f]);
      }
    }
    const samples = [...byRow.values()];
    const endToEndCpu: Record<string, Spread> = {};
    const endToEndWall: Record<string, Spread> = {};
    for (const [row, s] of byRow) {
      endToEndCpu[row] = spread(s.endToEndCpu);
      endToEndWall[row] = spread(s.endToEndWall);
    }
    const ofShape = (sh: FleetShape) =>
      samples.filter(
        (s) => (s.gateways ?? 1) === sh.gateways && (s.route ?? 'hash') === (sh.route ?? 'hash'),
      );
    const parseCpuByShape: Record<string, Spread> = {};
    for (const sh of shapes.slice(1))
      parseCpuByShape[shapeName(sh)] = spread(ofShape(sh).flatMap((s) => s.parseCpu));
    return {
      lines,
      runs,
      format: 'combined',
      shapes: [...shapes],
      parseCpu: spread(ofShape(shapes[0]).flatMap((s) => s.parseCpu)),
      parseCpuByShape,
      endToEndCpu,
      endToEndWall,
      samples,
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const k = (x: number) => Math.round(x).toLocaleString('en-US');
const mmm = (s: Spread) => `${k(s.min)} / ${k(s.median)} / ${k(s.max)}`;

const met = (s: Spread) => (s.median >= REPLAY_TARGET ? 'yes' : '**no**');

export function replayTable(b: ReplayBench): string {
  const shapes = b.shapes ?? [{ gateways: 1 }];
  const first = shapeName(shapes[0]);
  // per shape: the readers alone, then each design's rows of that shape
  const rows = shapes.flatMap((sh) => {
    const name = shapeName(sh);
    const parse = name === first ? b.parseCpu : b.parseCpuByShape?.[name];
    const own = Object.entries(b.endToEndCpu).filter(([d]) => shapeOf(d, shapes) === name);
    return [
      ...(parse === undefined
        ? []
        : [`| the readers alone (parse)${name} | ${mmm(parse)} | ${met(parse)} |`]),
      ...own.map(([d, s]) => `| readers + ${d} | ${mmm(s)} | ${met(s)} |`),
    ];
  });
  const shapeText = shapes
    .map((sh) =>
      sh.gateways === 1 ? 'one gateway' : `${sh.gateways} gateways (\`--route ${sh.route ?? 'hash'}\`)`,
    )
    .join(', then ');
  return [
    `Replay speed: a generated combined log of ${k(b.lines)} lines (10,000 client addresses, 2,000 lines per second of stamps), ${shapeText}, 100 per minute, Δ = 1 s, read with the command's defaults (\`--spread uniform\`: a one-second stamp's lines placed at seeded draws inside it); lines per CPU-second of one process, min / median / max of ${b.runs} runs per design (each run a fresh process, warmed by an untimed replay of a fifth as many lines first, the designs taken in turn in each of ${b.runs} rounds, the readers alone timed in every one of them); a design "--reads on-request" is that design with the gateways' \`reads: 'on-request'\` (a quiet key read only after a request).`,
    '',
    '| what | lines per CPU-second | median ≥ 200,000 |',
    '|---|---:|:---:|',
    ...rows,
    '',
  ].join('\n');
}

/** The shape a row's name ends with ('' for one gateway): the longest shape name it ends with. */
function shapeOf(row: string, shapes: readonly FleetShape[]): string {
  let best = '';
  for (const sh of shapes) {
    const n = shapeName(sh);
    if (n.length > best.length && row.endsWith(n)) best = n;
  }
  return best;
}
