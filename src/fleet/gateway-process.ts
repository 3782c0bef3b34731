/**
 * One gateway: a node:http server with the fleetlimit middleware over the async runtime, its own
 * Redis connection, forwarding admitted requests to the upstream over keep-alive connections.
 */
import { Agent, createServer, request } from 'node:http';
import { Redis } from 'ioredis';
import { createAsyncGateway } from '../gateway/runtime/index.js';
import { withRateLimit } from '../http/node.js';
import { RedisStore } from '../store/redis/index.js';
import { childSetup, cpuSince, send } from './children.js';
import { keyOfPath } from './key-choice.js';
import type { CoordinatorMessage, GatewayConfig, GatewayReport } from './protocol.js';
import { RoundTripCountingStore } from './round-trip-counting-store.js';

const cfg = childSetup<GatewayConfig>();

const redis = new Redis(cfg.redisUrl, {
  // the runtime times calls out itself; ioredis must not fail them on its own schedule
  maxRetriesPerRequest: null,
  enableAutoPipelining: false,
});
redis.on('error', () => {
  // connection errors surface as failed store calls in the runtime's counters
});
const store = new RoundTripCountingStore(
  new RedisStore(redis, {
    prefix: cfg.prefix,
    ...(cfg.expiryMarginMs !== undefined ? { expiryMarginMs: cfg.expiryMarginMs } : {}),
  }),
);
const gw = createAsyncGateway({
  id: cfg.id,
  design: cfg.design,
  limit: cfg.limit,
  windowMs: cfg.windowMs,
  gateways: cfg.gateways,
  syncMs: cfg.syncMs,
  storeTimeoutMs: cfg.storeTimeoutMs,
  ...(cfg.reads !== undefined ? { reads: cfg.reads } : {}),
  store,
});
const syncLatencies: number[] = [];
let keySyncs = 0;
// the steady state, as the simulator counts it: syncs from one window after 'mark' on (the first fills the key set)
let steadyFrom = Number.POSITIVE_INFINITY;
let steadyKeySyncs = 0;
gw.on('sync', (e) => {
  syncLatencies.push(e.latencyMs);
  keySyncs += e.keys;
  if (Date.now() >= steadyFrom) steadyKeySyncs += e.keys;
});
gw.on('syncError', () => {});
gw.on('storeCallError', () => {});

const agent = new Agent({ keepAlive: true, maxSockets: 64 });
let forwarded = 0;
let forwardErrors = 0;

const handler = withRateLimit(
  gw,
  (req, res, decision) => {
    // The admit's own time (decision.at): the instant on this gateway's estimate of the store's clock
    // that the admit is pushed to the store with, and that the store ages it out by. The run judges
    // the windows on it: the frame the store keeps the limit in.
    const at = decision?.at ?? gw.now();
    const headers = { 'x-fleet-admitted-at': String(at), 'x-fleet-gateway': cfg.id };
    const up = request(
      { host: '127.0.0.1', port: cfg.upstreamPort, path: req.url ?? '/', method: req.method, agent, headers },
      (ur) => {
        const chunks: Buffer[] = [];
        ur.on('data', (c: Buffer) => chunks.push(c));
        ur.on('end', () => {
          forwarded++;
          res.statusCode = ur.statusCode ?? 502;
          res.end(Buffer.concat(chunks));
        });
      },
    );
    up.on('error', () => {
      forwardErrors++;
      if (!res.headersSent) res.statusCode = 502;
      res.end();
    });
    up.end();
  },
  // one key for every request: the simulator's one key (the warm-up has its own); with many keys,
  // the rank in the path, refused unless it is one of the run's keys (the store's work stays bounded)
  { key: (req) => (req.url === '/warmup' ? 'warmup' : (manyKey(req.url) ?? cfg.key)) },
);

function manyKey(url: string | undefined): string | null {
  if (cfg.keyCount === undefined) return null;
  return keyOfPath(url, cfg.keyCount);
}

/** Heap in use, after a full collection when this process may ask for one (--expose-gc). */
function heapUsed(): number {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (gc !== undefined) gc();
  return process.memoryUsage().heapUsed;
}

const server = createServer(handler);
server.keepAliveTimeout = 30_000;

let cpuAtReady = process.cpuUsage();
/** The counters at 'mark' (the end of the warm-up): the report gives what happened since. */
let mark = {
  stats: gw.stats(),
  storeCalls: 0,
  overlappingAsks: 0,
  forwarded: 0,
  forwardErrors: 0,
  keySyncs: 0,
  heap: 0,
};
redis.once('ready', () => {
  if (cfg.idle !== true) gw.start();
  cpuAtReady = process.cpuUsage();
  server.listen(0, '127.0.0.1', () => {
    const a = server.address();
    send({ type: 'ready', port: typeof a === 'object' && a !== null ? a.port : 0 });
  });
});

process.on('message', async (m: CoordinatorMessage) => {
  if (m.type === 'mark') {
    mark = {
      stats: gw.stats(),
      storeCalls: store.requestPathCalls,
      overlappingAsks: store.overlappingAsks,
      forwarded,
      forwardErrors,
      keySyncs,
      heap: heapUsed(),
    };
    steadyFrom = Date.now() + cfg.windowMs;
    steadyKeySyncs = 0;
    syncLatencies.length = 0;
    cpuAtReady = process.cpuUsage();
    send({ type: 'marked' });
  } else if (m.type === 'report') {
    const heldKeys = gw.keyCount;
    const heapAtEnd = heapUsed();
    const keySyncsInRun = keySyncs - mark.keySyncs;
    const steadyMs = Math.max(0, Date.now() - steadyFrom);
    const steady = steadyKeySyncs;
    // the last sync pushes what is pending and hands lease slots back, as a gateway shutting down would
    await gw.stop();
    const s = gw.stats();
    const m0 = mark.stats;
    const d = s.decisions;
    const d0 = m0.decisions;
    const allowed = d.allowed - d0.allowed;
    const limited = d.limited - d0.limited;
    const degradedAllowed = d.degradedAllowed - d0.degradedAllowed;
    const degradedLimited = d.degradedLimited - d0.degradedLimited;
    const report: GatewayReport = {
      type: 'report',
      id: cfg.id,
      requests: allowed + limited + degradedAllowed + degradedLimited,
      allowed,
      limited,
      degradedAllowed,
      degradedLimited,
      storeCalls: store.requestPathCalls - mark.storeCalls,
      overlappingAsks: store.overlappingAsks - mark.overlappingAsks,
      forwarded: forwarded - mark.forwarded,
      forwardErrors: forwardErrors - mark.forwardErrors,
      syncs: s.syncs - m0.syncs,
      syncTimeouts: s.syncTimeouts - m0.syncTimeouts,
      syncRefusals: s.syncRefusals - m0.syncRefusals,
      syncErrors: s.syncErrors - m0.syncErrors,
      storeCallFailures: s.storeCallFailures - m0.storeCallFailures,
      syncLatencies,
      coalescedAsks: s.coalescedAsks - m0.coalescedAsks,
      offsetMs: s.offsetMs,
      offsetErrorMs: s.offsetErrorMs,
      cpuMs: cpuSince(cpuAtReady),
      keySyncs: keySyncsInRun,
      steadyKeySyncs: steady,
      steadyMs,
      heldKeys,
      heapAtMark: mark.heap,
      heapAtEnd,
    };
    send(report);
  } else if (m.type === 'join') {
    gw.start();
  } else if (m.type === 'leave') {
    // as a gateway scaled in: its last sync, and it leaves the count of live gateways at once
    await gw.stop();
  } else if (m.type === 'stop') {
    server.closeAllConnections();
    server.close();
    agent.destroy();
    redis.disconnect();
    process.exit(0);
  }
});
