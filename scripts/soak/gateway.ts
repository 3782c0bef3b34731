/**
 * One soak gateway in its own process: the async runtime over RedisStore with docs/production.md's client
 * options, behind node:http with the fleetlimit middleware (`GET /k/<key>` is rate-limited on <key>,
 * answers 200 or 429). It measures its own event loop and heap (LoopMonitor) and records the
 * decision-clock instant of every admit, so the coordinator can compare them with the store's count.
 */
import { createServer, type IncomingMessage } from 'node:http';
import { createHistogram } from 'node:perf_hooks';
import { childSetup, send } from '../../src/fleet/children.js';
import { createAsyncGateway } from '../../src/gateway/runtime/index.js';
import { withRateLimit } from '../../src/http/node.js';
import { RedisStore } from '../../src/store/redis/index.js';
import { gatewayClient, ready } from '../../test/support/fault-fleet.js';
import { LoopMonitor } from './monitor.js';
import type { CoordinatorMessage, GatewayConfig, GatewayReport, SampleMessage } from './protocol.js';

const cfg = childSetup<GatewayConfig>();
const monitor = new LoopMonitor();

const redis = gatewayClient(cfg.redisUrl, cfg.storeTimeoutMs);
const gw = createAsyncGateway({
  id: cfg.id,
  design: cfg.design,
  limit: cfg.limit,
  windowMs: cfg.windowMs,
  gateways: cfg.gateways,
  syncMs: cfg.syncMs,
  storeTimeoutMs: cfg.storeTimeoutMs,
  store: new RedisStore(redis, { prefix: cfg.prefix }),
});
gw.on('syncError', () => {});
gw.on('storeCallError', () => {});

const admits = new Map<string, number[]>();
const serverUs = createHistogram();

const keyOf = (req: IncomingMessage): string => decodeURIComponent((req.url ?? '/k/').slice(3));
const limited = withRateLimit(
  gw,
  (req, res) => {
    // called as the decision is made: gw.now() is the instant the admit was stamped with
    const key = keyOf(req);
    let a = admits.get(key);
    if (a === undefined) admits.set(key, (a = []));
    a.push(gw.now());
    res.end('ok');
  },
  { key: keyOf },
);
const server = createServer((req, res) => {
  const t0 = performance.now();
  res.once('finish', () => serverUs.record(Math.max(1, Math.round((performance.now() - t0) * 1000))));
  limited(req, res);
});
server.keepAliveTimeout = 60_000;

let samples = 0;
let sampler: ReturnType<typeof setInterval> | undefined;
const takeSample = () => {
  samples++;
  // admits older than two windows are not needed for the count check at the end
  const cut = gw.now() - 2 * cfg.windowMs;
  for (const [k, a] of admits) {
    let j = 0;
    while (j < a.length && a[j] <= cut) j++;
    if (j === a.length) admits.delete(k);
    else if (j > 0) a.splice(0, j);
  }
  const sample = monitor.sample(samples % cfg.heapEvery === 0);
  const d = gw.stats().decisions;
  const msg: SampleMessage = { type: 'sample', from: cfg.id, sample, counters: { ...d } };
  send(msg);
};
// every process forcing its full GC at the same instant would be a CPU burst of the soak's own making
const phase = setTimeout(
  () => {
    takeSample();
    sampler = setInterval(takeSample, cfg.sampleS * 1000);
  },
  cfg.sampleS * 1000 + cfg.phaseMs,
);

await ready(redis);
gw.start();
server.listen(0, '127.0.0.1', () => {
  const a = server.address();
  send({ type: 'ready', port: typeof a === 'object' && a !== null ? a.port : 0 });
});

const ms = (us: number) => us / 1000;
process.on('message', async (m: CoordinatorMessage) => {
  if (m.type === 'report') {
    clearTimeout(phase);
    clearInterval(sampler);
    server.close();
    server.closeAllConnections();
    // the last sync pushes whatever is pending, as a gateway shutting down would
    const stoppedCleanly = await gw.stop();
    const s = gw.stats();
    const report: GatewayReport = {
      type: 'report',
      id: cfg.id,
      loop: monitor.summary(),
      admits: Object.fromEntries(admits),
      decisions: s.decisions,
      syncs: s.syncs,
      syncTimeouts: s.syncTimeouts,
      syncErrors: s.syncErrors,
      storeCallFailures: s.storeCallFailures,
      unsyncedAdmitsAfterStop: s.unsyncedAdmits,
      keysHeld: s.keys,
      serverMs: {
        p50: ms(serverUs.percentile(50)),
        p99: ms(serverUs.percentile(99)),
        max: ms(serverUs.max),
      },
      stoppedCleanly,
    };
    send(report);
  } else if (m.type === 'stop') {
    monitor.stop();
    redis.disconnect();
    // a normal exit, so --cpu-prof writes its profile
    process.exit(0);
  }
});
