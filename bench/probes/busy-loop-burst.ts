// Issue 32, item 1: a busy event loop taken for a store outage. The sidecar (the CLI, in a child
// process, on a private redis-server, gRPC on 127.0.0.1) with L = 100 per minute, K = 4, Δ = 200 ms:
// - open:  a key filled to L, then 2,000 concurrent calls on it. Every one should be OVER_LIMIT;
//          a gateway that takes its own stall for an outage admits them (issue: 1,292–1,926).
// - local: 2,000 concurrent calls over 20 fresh keys, 100 each (= L: all honest). None should be
//          rejected; a gateway on its fail mode splits L over K (25 each) and rejects the rest
//          (issue: 297–4,773 of a 10,000-call burst over 100 keys; on a loaded 2-core box a
//          10,000-call burst outlives any sane client deadline, so the brief's 2,000-call burst).
// Each round also reads the sidecar's /metrics: sync failures and degraded decisions.
// Bounded: `rounds` rounds (default 3, at most 10), every call with a 60 s deadline, the whole run 300 s.
// Usage: nice node --import tsx bench/probes/busy-loop-burst.ts [open|local|both] [rounds] [local keys, ≤ 100]
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as grpc from '@grpc/grpc-js';
import { startRedisServer } from '../../src/fleet/redis-server.js';
import { loadRateLimitService } from '../../src/sidecar/grpc-server.js';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '../..');
const which = process.argv[2] ?? 'both';
const rounds = Math.min(10, Number(process.argv[3] ?? 3));
const L = 100;
const SYNC_MS = 200;
const CALL_DEADLINE_MS = 60_000;
const RUN_MS = 300_000;
/** local: fresh keys per round, L calls each (20: the brief's 2,000-call burst; 100: the issue's 10,000). */
const KEYS = Math.min(100, Number(process.argv[4] ?? 20));

type Rls = grpc.Client & { ShouldRateLimit: (r: unknown, o: grpc.CallOptions, cb: Cb) => void };
type Cb = (e: grpc.ServiceError | null, a: { overall_code: string }) => void;

function ask(c: Rls, key: string): Promise<string> {
  const req = { domain: 'edge', descriptors: [{ entries: [{ key: 'api_key', value: key }] }] };
  return new Promise((resolve) =>
    c.ShouldRateLimit(req, { deadline: Date.now() + CALL_DEADLINE_MS }, (err, a) =>
      resolve(err === null ? a.overall_code : `error ${err.code} ${err.details}`),
    ),
  );
}

async function metrics(http: string): Promise<{ syncFailures: number; degraded: number }> {
  const text = await (await fetch(`${http}/metrics`, { signal: AbortSignal.timeout(10_000) })).text();
  let syncFailures = 0;
  let degraded = 0;
  for (const m of text.matchAll(/^\w*sync_failures_total\{[^}]*\} (\d+)/gm)) syncFailures += Number(m[1]);
  for (const m of text.matchAll(/^\w*decisions_total\{[^}]*degraded="true"[^}]*\} (\d+)/gm))
    degraded += Number(m[1]);
  return { syncFailures, degraded };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function startSidecarChild(
  failMode: string,
  redisUrl: string,
  dir: string,
): Promise<{ child: ChildProcess; grpcAddress: string; http: string }> {
  const config = {
    id: `busy-${failMode}`,
    design: 'shared-counter',
    limit: L,
    windowMs: 60_000,
    gateways: 4,
    syncMs: SYNC_MS,
    failMode,
    redis: { prefix: `busy-${failMode}-${Date.now()}:` },
    sidecar: {
      http: { host: '127.0.0.1', port: 0 },
      grpc: { host: '127.0.0.1', port: 0, domain: 'edge', descriptors: [['api_key']] },
    },
  };
  const file = join(dir, `${failMode}.json`);
  writeFileSync(file, JSON.stringify(config));
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', join(ROOT, 'src/cli/main.ts'), 'sidecar', file, '--redis', redisUrl],
    { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] },
  );
  const line = await new Promise<string>((resolve, reject) => {
    let out = '';
    const t = setTimeout(() => reject(new Error('sidecar did not start within 30 s')), 30_000);
    child.stdout?.on('data', (d: Buffer) => {
      out += d.toString();
      if (out.includes('\n')) {
        clearTimeout(t);
        resolve(out);
      }
    });
    child.once('exit', (code) => reject(new Error(`sidecar exited (${code})`)));
  });
  const m = /http (http:\/\/127\.0\.0\.1:\d+), grpc (127\.0\.0\.1:\d+)/.exec(line);
  if (m === null) throw new Error(`unexpected sidecar line: ${line}`);
  return { child, http: m[1], grpcAddress: m[2] };
}

async function probe(failMode: 'open' | 'local', redisUrl: string, dir: string): Promise<void> {
  const { child, grpcAddress, http } = await startSidecarChild(failMode, redisUrl, dir);
  const Service = loadRateLimitService();
  const c = new Service(grpcAddress, grpc.credentials.createInsecure()) as unknown as Rls;
  try {
    for (let r = 0; r < rounds; r++) {
      const before = await metrics(http);
      let line: string;
      if (failMode === 'open') {
        const key = `full-${r}`;
        for (let i = 0; i < L; i++) await ask(c, key);
        // the store has them, and the gateway's view says so
        await sleep(3 * SYNC_MS);
        const codes = await Promise.all(Array.from({ length: 2_000 }, () => ask(c, key)));
        const ok = codes.filter((x) => x === 'OK').length;
        const errors = codes.filter((x) => x.startsWith('error'));
        line = `open, round ${r + 1}: ${ok} of 2000 admitted on a full key (L = ${L})${errors.length > 0 ? `, ${errors.length} errors (${[...new Set(errors)].slice(0, 3).join('; ')})` : ''}`;
      } else {
        const calls: Promise<string>[] = [];
        for (let i = 0; i < L; i++) for (let k = 0; k < KEYS; k++) calls.push(ask(c, `r${r}-k${k}`));
        const codes = await Promise.all(calls);
        const rejected = codes.filter((x) => x === 'OVER_LIMIT').length;
        const errors = codes.filter((x) => x.startsWith('error'));
        line = `local, round ${r + 1}: ${rejected} of ${KEYS * L} honest calls rejected (${KEYS} keys × L)${errors.length > 0 ? `, ${errors.length} errors (${[...new Set(errors)].slice(0, 3).join('; ')})` : ''}`;
      }
      await sleep(3 * SYNC_MS);
      const after = await metrics(http);
      console.log(
        `${line}; sync failures ${after.syncFailures - before.syncFailures}, degraded decisions ${after.degraded - before.degraded}`,
      );
    }
  } finally {
    c.close();
    child.kill('SIGTERM');
    await new Promise((r) => {
      const t = setTimeout(() => {
        child.kill('SIGKILL');
        r(null);
      }, 5_000);
      child.once('exit', () => {
        clearTimeout(t);
        r(null);
      });
    });
  }
}

const deadline = setTimeout(() => {
  console.error(`busy-loop-burst: over ${RUN_MS / 1000} s, giving up`);
  process.exit(1);
}, RUN_MS);
deadline.unref();
const server = await startRedisServer();
const dir = mkdtempSync(join(tmpdir(), 'busy-loop-'));
try {
  if (which === 'open' || which === 'both') await probe('open', server.url, dir);
  if (which === 'local' || which === 'both') await probe('local', server.url, dir);
} finally {
  await server.stop();
  rmSync(dir, { recursive: true, force: true });
}
