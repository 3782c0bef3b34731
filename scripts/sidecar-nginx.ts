// NGINX + fleetlimit sidecar pairs sharing one Redis, flooded, beside the simulator (docs/nginx.md).
//   npm run sidecar:nginx -- [--designs shared-counter,adaptive,leases-ask] [--gateways 2] [--limit 20]
//     [--window 2000] [--sync 200] [--load 20] [--duration 20000] [--seeds 1]
// Needs nginx and redis-server on PATH (node scripts/test-prereqs.mjs installs them).
import { parseArgs } from 'node:util';
import type { DesignId } from '../src/config.js';
import { compareWithSimulator } from '../test/support/proxy-compare.js';
import { startRedisServer } from '../test/support/redis-server.js';

const { values: a } = parseArgs({
  options: {
    designs: { type: 'string', default: 'shared-counter,adaptive,leases-ask' },
    gateways: { type: 'string', default: '2' },
    limit: { type: 'string', default: '20' },
    window: { type: 'string', default: '2000' },
    sync: { type: 'string', default: '200' },
    load: { type: 'string', default: '20' },
    duration: { type: 'string', default: '20000' },
    seeds: { type: 'string', default: '1' },
  },
});
const n = (v: string | undefined) => Number(v);
const redis = await startRedisServer();
try {
  console.log(
    `K = ${a.gateways} NGINX + sidecar pairs, L = ${a.limit} per ${a.window} ms, Δ = ${a.sync} ms, flood ${a.load} × L per W over ${a.duration} ms, even routing`,
  );
  console.log(
    '| design | seed | admitted per window × L (live / simulator, diff) | worst window × L (live / simulator) | sent | statuses |',
  );
  console.log('| --- | --- | --- | --- | --- | --- |');
  for (const design of (a.designs ?? '').split(',')) {
    for (let seed = 1; seed <= n(a.seeds); seed++) {
      const r = await compareWithSimulator({
        redisUrl: redis.url,
        design: design as DesignId,
        gateways: n(a.gateways),
        limit: n(a.limit),
        windowMs: n(a.window),
        syncMs: n(a.sync),
        load: n(a.load),
        durationMs: n(a.duration),
        warmupMs: 1000,
        seed,
        simSeeds: 10,
        prefix: `cmp-${design}-${seed}-${Date.now()}:`,
      });
      const pct = `${r.diff >= 0 ? '+' : '−'}${Math.abs(100 * r.diff).toFixed(1)} %`;
      console.log(
        `| ${design} | ${seed} | ${r.live.admittedPerWindow.toFixed(3)} / ${r.sim.admittedPerWindow.toFixed(3)} (${pct}) | ${r.live.worstWindow.toFixed(2)} / ${r.sim.worstWindow.toFixed(2)} | ${r.live.sent} | ${JSON.stringify(r.live.statuses)} |`,
      );
    }
  }
} finally {
  await redis.stop();
}
