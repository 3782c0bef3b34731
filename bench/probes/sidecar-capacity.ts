/**
 * Issue 35's capacity question: CPU per decision of the sidecar and of its Redis, beside the
 * per-request central service (bench/sidecar-baseline.ts) and its Redis, in a closed loop of 32 over
 * HTTP or gRPC. The client runs in this process, so the req/s a closed loop reaches is the client's
 * limit as much as the server's on 2 cores; the figure compared is CPU per decision (server + Redis,
 * from /proc and INFO cpu), whose inverse is the decisions per CPU-second each service can serve.
 * Keys: KEYS of them, zipf popularity (exponent 1, the simulator's many-keys default), seeded.
 * Usage: nice node --import tsx bench/probes/sidecar-capacity.ts [http|grpc] [KEYS=10] [SECONDS=5]
 *   [ROUNDS=3] [--prof DIR] (the sidecar writes a CPU profile into DIR: split it with profile-split.mjs)
 *   [--dist DIR[,DIR…]] (the sidecar's build, dist/ by default; several: an A/B, each round runs a
 *   sidecar of every build on the same Redis server, in an order that alternates round to round,
 *   beside one central service, and central ÷ sidecar is taken per round and build)
 *   [--reads every-sync|on-request] (the sidecar's `reads` mode; its default: on request)
 * Needs `npm run build` (the sidecar runs from dist/). Loopback only; every child ended by PID.
 */
import { spawn } from 'node:child_process';
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
const distAt = args.indexOf('--dist');
const dists = (distAt >= 0 ? args.splice(distAt, 2)[1] : 'dist').split(',');
const readsAt = args.indexOf('--reads');
const reads = readsAt >= 0 ? args.splice(readsAt, 2)[1] : null;
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
    ...(reads === null ? {} : { reads }),
    sidecar: { http: { port: 0 }, grpc: { port: 0, domain: 'edge', descriptors: [['api_key']] } },
  }),
);

/** One build's sidecar on a Redis server of its own, started for its measurement and ended after it. */
async function measureSidecar(name: string, dist: string, prof: string[]) {
  const rs = await startRedisServer();
  const probe = new Redis(rs.url);
  const sc = spawn(
    process.execPath,
    [...prof, join(dist, 'cli/main.js'), 'sidecar', cfg, '--redis', rs.url],
    {
      stdio: ['ignore', 'pipe', 'ignore'],
    },
  );
  try {
    const m = await waitForLine(sc, /http http:\/\/127\.0\.0\.1:(\d+), grpc (\S+) \(/, 'sidecar');
    return await measure(name, sc.pid as number, { http: Number(m[1]), grpc: m[2] }, probe);
  } finally {
    killChild(sc);
    await exited(sc);
    probe.disconnect();
    await rs.stop();
  }
}

const rows: (Awaited<ReturnType<typeof measure>> & { ratio: number })[] = [];
for (let round = 0; round < rounds; round++) {
  const rc = await startRedisServer();
  const probe = new Redis(rc.url);
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
  try {
    const cm = await waitForLine(central, /READY (\d+) (\d+)/, 'central service');
    const prof = profDir !== null && round === 0 ? ['--cpu-prof', `--cpu-prof-dir=${profDir}`] : [];
    // alternate the order round to round, so that no service always runs on the warmer machine
    const runs = [
      ...dists.map(
        (dist, i) => () => measureSidecar(dists.length === 1 ? 'sidecar' : `sidecar ${i}`, dist, prof),
      ),
      () =>
        measure('central', central.pid as number, { http: Number(cm[1]), grpc: `127.0.0.1:${cm[2]}` }, probe),
    ];
    if (round % 2 === 1) runs.reverse();
    const got: Awaited<ReturnType<typeof measure>>[] = [];
    for (const run of runs) got.push(await run());
    const c = got.find((r) => r.name === 'central') as (typeof got)[number];
    for (const r of got) rows.push({ ...r, ratio: c.total / r.total });
    // each round's totals as they come: the paired figures, under a load that changes between rounds
    console.log(
      `round ${round}: ${got.map((r) => `${r.name} ${r.total.toFixed(1)}`).join(', ')} µs/decision`,
    );
  } finally {
    killChild(central);
    await exited(central);
    probe.disconnect();
    await rc.stop();
  }
}

const fmt = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return `${s[0].toFixed(1)} / ${s[Math.floor(s.length / 2)].toFixed(1)} / ${s[s.length - 1].toFixed(1)}`;
};
const fmt2 = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return `${s[0].toFixed(2)} / ${s[Math.floor(s.length / 2)].toFixed(2)} / ${s[s.length - 1].toFixed(2)}`;
};
console.log(
  `${door}, ${keys} keys (zipf 1), reads ${reads ?? 'on request (default)'}, closed loop of ${CONCURRENCY}, ${seconds} s × ${rounds} (min / median / max)`,
);
if (dists.length > 1) for (const [i, d] of dists.entries()) console.log(`sidecar ${i}: ${d}`);
console.log(
  '| service | req/s | server µs/decision | Redis µs/decision | total µs/decision | central ÷ it |',
);
console.log('| --- | --- | --- | --- | --- | --- |');
for (const name of [...new Set(rows.map((x) => x.name))].sort()) {
  const r = rows.filter((x) => x.name === name);
  const ratio = name === 'central' ? '' : fmt2(r.map((x) => x.ratio));
  console.log(
    `| ${name} | ${fmt(r.map((x) => x.perS))} | ${fmt(r.map((x) => x.server))} | ${fmt(r.map((x) => x.redis))} | ${fmt(r.map((x) => x.total))} | ${ratio} |`,
  );
}
