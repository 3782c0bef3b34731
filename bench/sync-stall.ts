/**
 * How long one gateway sync of N held keys holds the event loop (issue 6, item 10): a shared-counter
 * gateway on RedisStore holding N keys (each with one admit to push, then none) syncs while a 1 ms
 * interval watches the loop. Prints, per N, the median over rounds of the longest gap between two
 * ticks and of the most CPU the process burnt between two ticks (the part that is our code, not the
 * scheduler), and the sync's wall time. Starts its own redis-server on a free loopback port.
 *
 *   node --import tsx bench/sync-stall.ts [N,N,...] [rounds]      # default 1000,10000,30000 and 5
 */

import { loadavg } from 'node:os';
import { startRedisServer } from '../src/fleet/redis-server.js';
import { createAsyncGateway } from '../src/gateway/runtime/index.js';
import { RedisStore } from '../src/store/redis/index.js';
import { gatewayClient, ready } from '../test/support/fault-fleet.js';

const sizes = (process.argv[2] ?? '1000,10000,30000').split(',').map(Number);
const rounds = Number(process.argv[3] ?? 5);
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const cpuMs = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};

const server = await startRedisServer();
const client = await ready(gatewayClient(server.url, 60_000));
console.log(
  `load average ${loadavg()
    .map((x) => x.toFixed(2))
    .join(' ')}`,
);
console.log('keys | longest gap, ms | most own CPU between ticks, ms | sync wall, ms');
for (const n of sizes) {
  const gw = createAsyncGateway({
    id: `bench-${n}`,
    design: 'shared-counter',
    limit: 100,
    windowMs: 60_000,
    gateways: 4,
    syncMs: 1000,
    storeTimeoutMs: 60_000,
    store: new RedisStore(client, { prefix: `stall${n}:` }),
  });
  // the first sync brings Redis's clock: decisions before it would wait for it
  await gw.syncNow();
  const gaps: number[] = [];
  const cpus: number[] = [];
  const walls: number[] = [];
  for (let r = 0; r < rounds; r++) {
    // every other round pushes one admit per key; the others only read
    if (r % 2 === 0) for (let i = 0; i < n; i++) gw.admitNow(`k${i}`);
    let gap = 0;
    let cpu = 0;
    let last = performance.now();
    let lastCpu = cpuMs();
    const watch = setInterval(() => {
      const t = performance.now();
      const c = cpuMs();
      gap = Math.max(gap, t - last);
      cpu = Math.max(cpu, c - lastCpu);
      last = t;
      lastCpu = c;
    }, 1);
    const t0 = performance.now();
    await gw.syncNow();
    walls.push(performance.now() - t0);
    await new Promise((res) => setTimeout(res, 5));
    clearInterval(watch);
    gaps.push(gap);
    cpus.push(cpu);
  }
  console.log(`${n} | ${median(gaps).toFixed(0)} | ${median(cpus).toFixed(0)} | ${median(walls).toFixed(0)}`);
}
client.disconnect();
await server.stop();
