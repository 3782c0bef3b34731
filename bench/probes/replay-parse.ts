/**
 * Parse-only speed of the replay log readers (issue 33's target: 200,000 combined lines/s on one
 * core): writes a generated log to the temp directory, reads it through openArrivals RUNS times
 * (counting arrivals, no engine), and prints lines/s min/median/max (wall, and per CPU second of
 * this process, which a shared machine's load does not lower), beside reading and splitting lines alone. The log: N lines, 10,000 client addresses, about 2,000 lines per
 * second of stamps, every 50th line's stamp 1-3 s behind (as NGINX writes a slow request's start).
 *
 * With --design=ID, each run also replays the log end to end through that design against the
 * central log (readers + engine, one gateway, 100 per minute, Δ = 1 s), in the same process and run as
 * the parse alone: issue 33's end-to-end target is 200,000 lines/s for one design on one core.
 *
 *   nice node --import tsx bench/probes/replay-parse.ts [N=2000000] [RUNS=5] [FORMAT=combined] [gzip] [--design=ID]
 */
import { rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DesignId } from '../../src/config.js';
import type { Arrival } from '../../src/replay/arrival.js';
import { openArrivals } from '../../src/replay/parse/index.js';
import type { LogFormat } from '../../src/replay/parse/options.js';
import { readLines } from '../../src/replay/parse/read-lines.js';
import { writeLog } from '../../src/replay/parse/write-log.js';
import { replay } from '../../src/replay/run/engine.js';
import { Random } from '../../src/sim/random.js';
import { benchReplaySettings } from '../replay-settings.mjs';

const design = process.argv.find((a) => a.startsWith('--design='))?.slice('--design='.length) as
  | DesignId
  | undefined;
const args = process.argv.slice(2).filter((a) => !a.startsWith('--design='));
const N = Number(args[0] ?? 2_000_000);
const RUNS = Number(args[1] ?? 5);
const format = (args[2] ?? 'combined') as LogFormat;
const gzip = args[3] === 'gzip';

function* generated(n: number): Generator<Arrival> {
  const random = new Random(7);
  const t0 = Date.UTC(2026, 0, 5, 12, 0, 0);
  for (let i = 0; i < n; i++) {
    const behind = i % 50 === 0 ? 1000 + Math.floor(random.uniform() * 2000) : 0;
    const t = t0 + Math.floor(i / 2) - behind; // 2,000 per second of ms
    const ip = Math.floor(random.uniform() * 10_000);
    const key = `10.${(ip >> 8) & 255}.${ip & 255}.${(ip * 7) & 255}`;
    yield { t, key, gateway: 0, status: random.uniform() < 0.05 ? 429 : 200 };
  }
}

const file = join(tmpdir(), `replay-parse-bench-${process.pid}.log${gzip ? '.gz' : ''}`);
const stats = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return { min: s[0], median: s[Math.floor(s.length / 2)], max: s[s.length - 1] };
};
const fmt = (x: number) => Math.round(x).toLocaleString('en-US');

try {
  await writeLog(file, generated(N), { format, tzOffsetMinutes: 60, gzip });
  const whole: number[] = [];
  // lines per CPU second of this process: the machine is shared, and wall time counts others' turns
  const wholeCpu: number[] = [];
  const linesOnly: number[] = [];
  const endToEnd: number[] = [];
  const endToEndCpu: number[] = [];
  for (let r = 0; r < RUNS; r++) {
    let t = performance.now();
    let lines = 0;
    for await (const b of readLines(file, 65536)) lines += b.count;
    linesOnly.push(lines / ((performance.now() - t) / 1000));
    t = performance.now();
    const cpu0 = process.cpuUsage();
    const src = openArrivals([file], { format });
    let n = 0;
    for await (const _ of src.arrivals) n++;
    const s = src.stats();
    if (n !== N || s.lines !== N) throw new Error(`read ${n} arrivals of ${s.lines} lines, wrote ${N}`);
    whole.push(N / ((performance.now() - t) / 1000));
    const cpu = process.cpuUsage(cpu0);
    wholeCpu.push(N / ((cpu.user + cpu.system) / 1e6));
    if (design !== undefined) {
      const t1 = performance.now();
      const cpu1 = process.cpuUsage();
      const r = await replay(openArrivals([file], { format }), benchReplaySettings([design]));
      if (r.arrivals !== N) throw new Error(`replayed ${r.arrivals} of ${N}`);
      endToEnd.push(N / ((performance.now() - t1) / 1000));
      const c1 = process.cpuUsage(cpu1);
      endToEndCpu.push(N / ((c1.user + c1.system) / 1e6));
    }
  }
  const w = stats(whole);
  const l = stats(linesOnly);
  const c = stats(wholeCpu);
  process.stdout.write(
    `${format}${gzip ? ' (gzip)' : ''}, ${fmt(N)} lines, ${RUNS} runs, Node ${process.version}\n` +
      `openArrivals, lines/s: min ${fmt(w.min)}, median ${fmt(w.median)}, max ${fmt(w.max)}\n` +
      `openArrivals, lines per CPU second: min ${fmt(c.min)}, median ${fmt(c.median)}, max ${fmt(c.max)}\n` +
      `reading lines only, lines/s: min ${fmt(l.min)}, median ${fmt(l.median)}, max ${fmt(l.max)}\n`,
  );
  if (design !== undefined) {
    const e = stats(endToEnd);
    const ec = stats(endToEndCpu);
    process.stdout.write(
      `end to end (readers + ${design} and the central log), lines/s: min ${fmt(e.min)}, median ${fmt(e.median)}, max ${fmt(e.max)}\n` +
        `end to end, lines per CPU second: min ${fmt(ec.min)}, median ${fmt(ec.median)}, max ${fmt(ec.max)}\n`,
    );
  }
} finally {
  rmSync(file, { force: true });
}
