// What a key-rotation flood through the sidecar costs Redis (issue 32): one sidecar running
// docs/examples/sidecar-nginx.json on a private redis-server, sent `--rate` requests a second for
// `--duration` ms, each with a new x-api-key from one address, as NGINX's /_fleetlimit subrequest
// (the path docs/examples/nginx.conf proxies it to, or `--path`). Redis's commands (INFO
// commandstats: every command, those a script calls included) are counted from before the flood
// until `--tail` ms after it (the example's W is 60 s: a key seen once is held until its admit ages
// out, and read every Δ meanwhile if the file sets "reads": "every-sync"), then divided by the requests sent.
//   npx tsx scripts/key-rotation-cost.ts [--rate 500] [--duration 10000] [--tail 65000] [--path /decide]
// Loopback only; bounded: rate × duration requests, one sidecar, stops by itself.
import { readFileSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { Redis } from 'ioredis';
import { loadConfig } from '../src/config-file.js';
import { startRedisServer } from '../src/fleet/redis-server.js';
import { connectRedis } from '../src/sidecar/redis-client.js';
import { startSidecar } from '../src/sidecar/sidecar.js';
import { RedisStore } from '../src/store/redis/redis-store.js';

const { values: a } = parseArgs({
  options: {
    rate: { type: 'string', default: '500' },
    duration: { type: 'string', default: '10000' },
    tail: { type: 'string', default: '65000' },
    path: { type: 'string' },
  },
});
const rate = Number(a.rate);
const durationMs = Number(a.duration);
const tailMs = Number(a.tail);
const ROOT = join(import.meta.dirname, '..');

/** The path nginx.conf's `location = /_fleetlimit` proxies each auth_request to. */
function decidePath(): string {
  const conf = readFileSync(join(ROOT, 'docs/examples/nginx.conf'), 'utf8');
  const block = /location = \/_fleetlimit \{([^}]*)\}/.exec(conf);
  const pass = block === null ? null : /proxy_pass http:\/\/fleetlimit(\/\S*);/.exec(block[1]);
  if (pass === null) throw new Error('docs/examples/nginx.conf: no proxy_pass in location = /_fleetlimit');
  return pass[1];
}
const path = a.path ?? decidePath();

/** Every command Redis ran so far, by name (calls), scripts' own included. */
async function commands(r: Redis): Promise<Map<string, number>> {
  const info = await r.info('commandstats');
  const out = new Map<string, number>();
  for (const m of info.matchAll(/^cmdstat_([^:]+):calls=(\d+)/gm)) out.set(m[1], Number(m[2]));
  return out;
}
const total = (m: Map<string, number>, skip = new Set(['info'])) =>
  [...m].reduce((s, [k, v]) => (skip.has(k) ? s : s + v), 0);

const redis = await startRedisServer();
const probe = new Redis(redis.url);
try {
  const file = JSON.parse(readFileSync(join(ROOT, 'docs/examples/sidecar-nginx.json'), 'utf8'));
  const config = loadConfig({ ...file, redis: { prefix: 'rot:' } });
  const client = await connectRedis({ url: redis.url }, config.gateway.storeTimeoutMs ?? 200, () => {});
  const sc = await startSidecar(config, { store: new RedisStore(client, config.redis), httpPort: 0 });
  const url = new URL(`${sc.httpUrl}${path}`);
  const agent = new Agent({ keepAlive: true, maxSockets: 16 });
  const before = await commands(probe);
  const start = Date.now();
  let sent = 0;
  const statuses: Record<number, number> = {};
  const pending: Promise<void>[] = [];
  const perSecond: number[] = [];
  let last = total(before);
  const sampler = setInterval(async () => {
    const now = total(await commands(probe));
    perSecond.push(now - last);
    last = now;
  }, 1000);
  while (Date.now() - start < durationMs) {
    const due = Math.floor(((Date.now() - start) * rate) / 1000);
    while (sent < due && sent < (rate * durationMs) / 1000) {
      const i = sent++;
      pending.push(
        new Promise<void>((res) => {
          const req = request(
            {
              host: url.hostname,
              port: url.port,
              path: url.pathname,
              agent,
              headers: { 'x-api-key': `rotating-${i}`, 'x-real-ip': '203.0.113.7' },
            },
            (r) => {
              r.resume();
              r.on('end', () => {
                statuses[r.statusCode ?? 0] = (statuses[r.statusCode ?? 0] ?? 0) + 1;
                res();
              });
            },
          );
          req.on('error', () => {
            statuses[0] = (statuses[0] ?? 0) + 1;
            res();
          });
          req.end();
        }),
      );
    }
    await new Promise((r) => setTimeout(r, 5));
  }
  await Promise.all(pending);
  await new Promise((r) => setTimeout(r, tailMs));
  clearInterval(sampler);
  const after = await commands(probe);
  const byName = [...after]
    .map(([k, v]) => [k, v - (before.get(k) ?? 0)] as const)
    .filter(([k, v]) => v > 0 && k !== 'info')
    .sort((x, y) => y[1] - x[1]);
  const all = total(after) - total(before);
  agent.destroy();
  await sc.stop();
  client.disconnect();
  const peak = Math.max(...perSecond);
  console.log(
    JSON.stringify(
      {
        path,
        rate,
        durationMs,
        tailMs,
        sent,
        statuses,
        redisCommands: all,
        commandsPerHostileRequest: Number((all / sent).toFixed(2)),
        peakCommandsPerS: peak,
        byCommand: Object.fromEntries(byName),
      },
      null,
      1,
    ),
  );
} finally {
  probe.disconnect();
  await redis.stop();
}
