// Issue 32, item 2: one request of a big cost at the gateway, then the sync that pushes it: the sync's
// wall time, the process's peak heap and array-buffer memory (sampled every 20 ms and read at the
// end), and the runs the entry carried. One case per process, so a build that runs out of memory
// (main before the fix: cost 10^8 aborted V8) is reported by the caller, not lost with the others.
// Usage: npm run build && node bench/probes/gateway-big-cost.mjs [memory|redis] [COST=50000000] [DESIGN=shared-counter] [DIST=dist]
//   memory: Gateway (synchronous) on MemoryStore; redis: AsyncGateway on RedisStore (exact mode) on a
//   private redis-server. L = 2 × COST, W = 60 s, K = 1.
// Several: for c in 50000000 100000000 1000000000; do node bench/probes/gateway-big-cost.mjs memory $c; done
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const storeKind = process.argv[2] ?? 'memory';
const cost = Number(process.argv[3] ?? 50_000_000);
const design = process.argv[4] ?? 'shared-counter';
const dist = pathToFileURL(resolve(process.argv[5] ?? 'dist')).href;
const { createGateway, MemoryStore } = await import(`${dist}/index.js`);

let peakHeap = 0;
let peakBuffers = 0;
const sample = () => {
  const m = process.memoryUsage();
  if (m.heapUsed > peakHeap) peakHeap = m.heapUsed;
  if (m.arrayBuffers > peakBuffers) peakBuffers = m.arrayBuffers;
};
const timer = setInterval(sample, 20);
const MB = (b) => `${(b / 1e6).toFixed(0)} MB`;
const opts = { id: 'gw', design, limit: 2 * cost, windowMs: 60_000, gateways: 1, syncMs: 1_000 };

let runs = Number.NaN;
let syncMs = Number.NaN;
let admitted = false;
let counted = Number.NaN;
if (storeKind === 'memory') {
  const store = new MemoryStore();
  const sync = store.sync.bind(store);
  store.sync = (req, now) => {
    for (const e of req.entries) if (e.admits.length > 0) runs = e.admits.length;
    return sync(req, now);
  };
  const gw = createGateway({ ...opts, store });
  admitted = gw.admit('k', 1_000, cost).allowed;
  const t0 = performance.now();
  gw.sync(1_500);
  syncMs = performance.now() - t0;
  sample();
  counted = store.countOf('k', gw.options.policy, 1_500);
} else {
  const { Redis } = await import('ioredis');
  const { startRedisServer } = await import(`${dist}/fleet/redis-server.js`);
  const { RedisStore } = await import(`${dist}/store/redis/index.js`);
  const { createAsyncGateway } = await import(`${dist}/gateway/runtime/index.js`);
  const server = await startRedisServer();
  const client = new Redis(server.port, server.host);
  try {
    const store = new RedisStore(client, { clock: 'caller' });
    const sync = store.sync.bind(store);
    store.sync = (req, now) => {
      for (const e of req.entries) if (e.admits.length > 0) runs = e.admits.length;
      return sync(req, now);
    };
    let now = 1_000;
    const gw = createAsyncGateway({ ...opts, store, clock: () => now, storeTimeoutMs: 600_000 });
    await gw.syncNow();
    admitted = (await gw.admit('k', cost)).allowed;
    now += 500;
    const t0 = performance.now();
    const ok = await gw.syncNow();
    syncMs = performance.now() - t0;
    sample();
    if (!ok) throw new Error('the sync failed');
    const read = await store.sync(
      {
        gatewayId: 'reader',
        seq: 1,
        policy: gw.options.policy,
        leaseTtlMs: 1_000,
        horizonMs: 1,
        entries: [{ key: 'k', admits: [], read: true, release: false, ask: 0 }],
      },
      now,
    );
    counted = read.replies[0].count;
    await gw.stop();
  } finally {
    client.disconnect();
    await server.stop();
  }
}
clearInterval(timer);
console.log(
  `${storeKind} ${design} cost ${cost}: ${admitted ? 'admitted' : 'refused'}; sync ${syncMs.toFixed(1)} ms, ` +
    `${runs} entries sent; store counts ${counted}; peak heap ${MB(peakHeap)}, array buffers ${MB(peakBuffers)}`,
);
