/**
 * What a refund costs (issue 36): every design on an AsyncGateway, on MemoryStore and on a private
 * redis-server, two subjects side by side in each repetition on fresh gateways and stores:
 * - counted: R requests over `keys` keys, a sync after each batch (as the gateway's timer would);
 * - refunded: the same requests, each taken back right after its decision (`gw.refund`), as
 *   skipSuccessfulRequests does when every response succeeds before the next sync: the admit is
 *   still this gateway's own, so it is taken back locally and never pushed;
 * - refunded late: each batch's decisions taken back after the sync that pushed them (a response
 *   slower than Δ): every refund goes to the store (refundAdmits), the path's worst case;
 * - one late per key: of each batch, each key's first decision taken back after the sync (a login
 *   limit's shape: a few requests per key, one refunded).
 * Figures per request: the gateway process's CPU (decisions, refunds, syncs, the client library) and,
 * on Redis, the server's CPU (INFO cpu). The limit is
 * never reached (L = 10^6), so both subjects admit every request. The order of the two alternates
 * between repetitions.
 */
import { Redis } from 'ioredis';
import { RedisProbe } from '../dist/fleet/redis-probe.js';
import { startRedisServer } from '../dist/fleet/redis-server.js';
import { AsyncGateway, DESIGN_IDS, type Decision, type DesignId, MemoryStore } from '../dist/index.js';
import { RedisStore } from '../dist/store/redis/index.js';
import { median } from './util.js';

export interface RefundRow {
  design: DesignId;
  store: 'memory' | 'redis';
  /** Gateway CPU µs per request: min / median / max over the repetitions. */
  countedUs: [number, number, number];
  refundedUs: [number, number, number];
  lateUs: [number, number, number];
  /** Gateway CPU µs per request with one late refund per key per sync, median. */
  lateOneUs: number;
  /** Medians of the per-repetition ratios refunded / counted and refunded late / counted (gateway CPU). */
  ratio: number;
  lateRatio: number;
  /** Redis server CPU µs per request (INFO cpu), medians; absent on MemoryStore. */
  redisCountedUs?: number;
  redisRefundedUs?: number;
  redisLateUs?: number;
  /** Redis CPU µs per request with one late refund per key per sync, median. */
  redisLateOneUs?: number;
  /** Requests taken back, median per repetition: every request, in both refunded subjects. */
  takenBack: number;
  lateTakenBack: number;
  lateOneTakenBack: number;
}

export interface RefundBench {
  requests: number;
  keys: number;
  batches: number;
  reps: number;
  rows: RefundRow[];
}

function cpuUs(): number {
  const c = process.cpuUsage();
  return c.user + c.system;
}

interface Once {
  gatewayUs: number;
  redisUs: number;
  takenBack: number;
}

type Subject = 'counted' | 'refunded' | 'late' | 'lateOne';

async function once(
  design: DesignId,
  subject: Subject,
  store: MemoryStore | RedisStore,
  probe: RedisProbe | null,
  n: number,
  keys: number,
  batches: number,
): Promise<Once> {
  const gw = new AsyncGateway({
    id: 'bench-gw',
    design,
    limit: 1_000_000,
    windowMs: 60_000,
    gateways: 4,
    syncMs: 1_000,
    store,
  });
  const perBatch = Math.ceil(n / batches);
  let takenBack = 0;
  // one untimed batch: every key held, scripts loaded, code warm
  for (let i = 0; i < keys; i++) await gw.admitNow(`k${i}`);
  await gw.syncNow();
  const r0 = probe === null ? 0 : (await probe.snapshot()).cpuS;
  const c0 = cpuUs();
  let i = 0;
  const held: [string, Decision][] = [];
  for (let b = 0; b < batches; b++) {
    for (let j = 0; j < perBatch; j++, i++) {
      const key = `k${i % keys}`;
      const d = await gw.admitNow(key);
      if (subject === 'refunded' && gw.refund(key, d)) takenBack++;
      else if (subject === 'late' || subject === 'lateOne') held.push([key, d]);
    }
    await gw.syncNow();
    const once = new Set<string>();
    for (const [key, d] of held) {
      if (subject === 'lateOne' && once.has(key)) continue;
      once.add(key);
      if (gw.refund(key, d)) takenBack++;
    }
    held.length = 0;
  }
  // a refund of an admit the store counts goes at the start of the next round: one more sync sends it
  await gw.syncNow();
  const gatewayUs = (cpuUs() - c0) / i;
  const redisUs = probe === null ? 0 : (((await probe.snapshot()).cpuS - r0) * 1e6) / i;
  await gw.stop();
  return { gatewayUs, redisUs, takenBack };
}

const range = (xs: number[]): [number, number, number] => [Math.min(...xs), median(xs), Math.max(...xs)];

export async function benchRefund(opts: { quick: boolean; log: (s: string) => void }): Promise<RefundBench> {
  const reps = opts.quick ? 3 : 5;
  const n = opts.quick ? 5_000 : 20_000;
  const keys = 100;
  const batches = 20;
  const server = await startRedisServer();
  const redis = new Redis(server.url, { maxRetriesPerRequest: 1 });
  // the server's CPU (INFO cpu: user + system; commandstats would count a script's commands twice)
  const probe = new RedisProbe(server.url);
  const rows: RefundRow[] = [];
  try {
    for (const store of ['memory', 'redis'] as const)
      for (const design of DESIGN_IDS as readonly DesignId[]) {
        opts.log(`refund ${design} on ${store}`);
        const runs: Record<Subject, Once[]> = { counted: [], refunded: [], late: [], lateOne: [] };
        const order: Subject[] = ['counted', 'refunded', 'late', 'lateOne'];
        for (let rep = 0; rep < reps; rep++) {
          // each subject goes first in turn
          for (const subject of [...order.slice(rep % 4), ...order.slice(0, rep % 4)]) {
            const s =
              store === 'memory'
                ? new MemoryStore()
                : new RedisStore(redis, { prefix: `rb:${design}:${rep}:${subject}:` });
            runs[subject].push(
              await once(design, subject, s, store === 'redis' ? probe : null, n, keys, batches),
            );
          }
          if (store === 'redis') await redis.flushall();
        }
        const { counted, refunded, late, lateOne } = runs;
        rows.push({
          design,
          store,
          countedUs: range(counted.map((r) => r.gatewayUs)),
          refundedUs: range(refunded.map((r) => r.gatewayUs)),
          lateUs: range(late.map((r) => r.gatewayUs)),
          lateOneUs: median(lateOne.map((r) => r.gatewayUs)),
          ratio: median(refunded.map((r, k) => r.gatewayUs / counted[k]!.gatewayUs)),
          lateRatio: median(late.map((r, k) => r.gatewayUs / counted[k]!.gatewayUs)),
          ...(store === 'redis'
            ? {
                redisCountedUs: median(counted.map((r) => r.redisUs)),
                redisRefundedUs: median(refunded.map((r) => r.redisUs)),
                redisLateUs: median(late.map((r) => r.redisUs)),
                redisLateOneUs: median(lateOne.map((r) => r.redisUs)),
              }
            : {}),
          takenBack: median(refunded.map((r) => r.takenBack)),
          lateTakenBack: median(late.map((r) => r.takenBack)),
          lateOneTakenBack: median(lateOne.map((r) => r.takenBack)),
        });
      }
  } finally {
    redis.disconnect();
    probe.close();
    await server.stop();
  }
  return { requests: n, keys, batches, reps, rows };
}

const f = (x: number) => x.toFixed(2);

export function renderRefund(b: RefundBench): string {
  const head =
    `${b.requests.toLocaleString('en-US')} requests over ${b.keys} keys, a sync every ${b.requests / b.batches} requests, ` +
    `${b.reps} repetitions (gateway CPU µs per request, min / median / max; Redis: its CPU µs per request, INFO cpu, median).\n\n` +
    '| design | store | counted | refunded at once | ratio | refunded after its sync | ratio | Redis: counted | at once | after its sync | one per key after its sync | Redis per such refund, beyond counting | taken back (at once, late, one per key) |\n|---|---|---|---|---|---|---|---|---|---|---|---|---|\n';
  return (
    head +
    b.rows
      .map(
        (r) =>
          `| ${r.design} | ${r.store} | ${r.countedUs.map(f).join(' / ')} | ${r.refundedUs.map(f).join(' / ')} | ${r.ratio.toFixed(2)}× | ${r.lateUs.map(f).join(' / ')} | ${r.lateRatio.toFixed(2)}× | ${
            r.redisCountedUs === undefined ? '' : f(r.redisCountedUs)
          } | ${r.redisRefundedUs === undefined ? '' : f(r.redisRefundedUs)} | ${r.redisLateUs === undefined ? '' : f(r.redisLateUs)} | ${
            r.redisLateOneUs === undefined ? '' : f(r.redisLateOneUs)
          } | ${
            r.redisLateOneUs === undefined || r.redisCountedUs === undefined || r.lateOneTakenBack === 0
              ? ''
              : f(((r.redisLateOneUs - r.redisCountedUs) * b.requests) / r.lateOneTakenBack)
          } | ${r.takenBack}, ${r.lateTakenBack}, ${r.lateOneTakenBack} |`,
      )
      .join('\n') +
    '\n'
  );
}
