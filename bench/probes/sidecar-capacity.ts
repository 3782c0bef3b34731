/**
 * Issue 35's capacity question: CPU per decision of the sidecar and of its Redis, beside the
 * per-request central service (bench/sidecar-baseline.ts) and its Redis, in a closed loop of 32 over
 * HTTP or gRPC. The client runs in this process, so the req/s a closed loop reaches is the client's
 * limit as much as the server's on 2 cores; the figure compared is CPU per decision (server + Redis,
 * from /proc and INFO cpu), whose inverse is the decisions per CPU-second each service can serve.
 * Keys: KEYS of them, zipf popularity (exponent 1, the simulator's many-keys default), seeded.
 * Usage: nice node --import tsx bench/probes/sidecar-capacity.ts [http|grpc] [KEYS=10] [SECONDS=5]
 *   [ROUNDS=3] [--prof DIR] (the sidecar writes a CPU profile into DIR: split it with profile-split.mjs)
 * Needs `npm run build` (the sidecar runs from dist/). Loopback only; every child ended by PID.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { startRedisServer } from '../../src/fleet/redis-server.js';
import {
  cpuMs,
  grpcSender,
  httpSender,
  keySequence,
  redisCpuMs,
  type Send,
  waitForLine,
} from '../sidecar.js';
import { exited, killChild } from '../util.js';

const args = process.argv.slice(2);
const profAt = args.indexOf('--prof');
const profDir = profAt >= 0 ? args.splice(profAt, 2)[1] : null;
const door = (args[0] ?? 'grpc') as 'http' | 'grpc';
const keys = Number(args[1] ?? 10);
const seconds = Number(args[2] ?? 5);
const rounds = Number(args[3] ?? 3);
const CONCURRENCY = 32;
// one seeded sequence of keys, replayed round the loop: both services see the same keys in the same order
const SEQUENCE = keySequence(keys, 1);

async function closedLoop(send: Send, ms: number): Promise<number> {
  let n = 0;
  const end = performance.now() + ms;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async (_, w) => {
      let i = w;
      while (performance.now() < end) {
        if (await send(SEQUENCE[i % SEQUENCE.length])) n++;
        i += CONCURRENCY;
      }
    }),
  );
  return n;
}

async function measure(name: string, pid: number, target: { http: number; grpc: string }, redis: Redis) {
  const s = door === 'http' ? httpSender(target.http) : grpcSender(target.grpc);
  try {
    await closedLoop(s.send, 1000);
    const c0 = cpuMs(pid);
    const r0 = await redisCpuMs(redis);
    const t0 = performance.now();
    const n = await closedLoop(s.send, seconds * 1000);
    const wall = (performance.now() - t0) / 1000;
    const server = ((cpuMs(pid) - c0) * 1000) / n;
    const red = (((await redisCpuMs(redis)) - r0) * 1000) / n;
    return { name, perS: n / wall, server, redis: red, total: server + red };
  } finally {
    s.close();
  }
}

const rows: Awaited<ReturnType<typeof measure>>[] = [];
for (let round = 0; round < rounds; round++) {
  const rs = await startRedisServer();
  const rc = await startRedisServer();
  const probes = { s: new Redis(rs.url), c: new Redis(rc.url) };
  const children: ChildProcess[] = [];
  try {
    const cfg = join(tmpdir(), `fleetlimit-capacity-${process.pid}.json`);
    writeFileSync(
      cfg,
      JSON.stringify({
        id: 'capacity',
        design: 'adaptive',
        limit: 100,
        windowMs: 60_000,
        gateways: 4,
        syncMs: 1000,
        sidecar: { http: { port: 0 }, grpc: { port: 0, domain: 'edge', descriptors: [['api_key']] } },
      }),
    );
    const prof = profDir !== null && round === 0 ? ['--cpu-prof', `--cpu-prof-dir=${profDir}`] : [];
    const sc = spawn(process.execPath, [...prof, 'dist/cli/main.js', 'sidecar', cfg, '--redis', rs.url], {
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    children.push(sc);
    const m = await waitForLine(sc, /http http:\/\/127\.0\.0\.1:(\d+), grpc (\S+) \(/, 'sidecar');
    const central = spawn(
      process.execPath,
      [
        '--import',
        'tsx',
        'bench/sidecar-baseline.ts',
        JSON.stringify({ redisUrl: rc.url, limit: 100, windowMs: 60_000 }),
      ],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    children.push(central);
    const cm = await waitForLine(central, /READY (\d+) (\d+)/, 'central service');
    // alternate which goes first, so neither always runs on the warmer machine
    const pair = [
      () => measure('sidecar', sc.pid as number, { http: Number(m[1]), grpc: m[2] }, probes.s),
      () =>
        measure(
          'central',
          central.pid as number,
          { http: Number(cm[1]), grpc: `127.0.0.1:${cm[2]}` },
          probes.c,
        ),
    ];
    if (round % 2 === 1) pair.reverse();
    for (const run of pair) rows.push(await run());
  } finally {
    for (const ch of children) {
      killChild(ch);
      await exited(ch);
    }
    probes.s.disconnect();
    probes.c.disconnect();
    await rs.stop();
    await rc.stop();
  }
}

const fmt = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return `${s[0].toFixed(1)} / ${s[Math.floor(s.length / 2)].toFixed(1)} / ${s[s.length - 1].toFixed(1)}`;
};
console.log(
  `${door}, ${keys} keys (zipf 1), closed loop of ${CONCURRENCY}, ${seconds} s × ${rounds} (min / median / max)`,
);
console.log('| service | req/s | server µs/decision | Redis µs/decision | total µs/decision |');
console.log('| --- | --- | --- | --- | --- |');
for (const name of ['sidecar', 'central']) {
  const r = rows.filter((x) => x.name === name);
  console.log(
    `| ${name} | ${fmt(r.map((x) => x.perS))} | ${fmt(r.map((x) => x.server))} | ${fmt(r.map((x) => x.redis))} | ${fmt(r.map((x) => x.total))} |`,
  );
}
