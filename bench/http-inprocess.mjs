// The request path of the node:http middleware without a socket or a load generator: CPU per request
// of each handler on real IncomingMessage/ServerResponse objects (the response is built, headers
// included, and buffered), interleaved, medians. It splits what the HTTP bench measures end to end
// into bare node:http, node's own cost of two headers (constant values), the limiter's decision
// (standardHeaders: false) and the limiter with its headers. shared-counter on a private Redis,
// L = 10^9, K = 4, Δ = 1 s, as in bench/http-servers.ts.
// Usage: npm run build && node bench/http-inprocess.mjs [ROUNDS=9] [N=50000]
import { IncomingMessage, ServerResponse } from 'node:http';
import { Redis } from 'ioredis';
import { startRedisServer } from '../dist/fleet/redis-server.js';
import { withRateLimit } from '../dist/http/index.js';
import { createAsyncGateway } from '../dist/index.js';
import { RedisStore } from '../dist/store/redis/index.js';

const ROUNDS = Number(process.argv[2] ?? 9);
const N = Number(process.argv[3] ?? 50_000);
const LIMIT = 1_000_000_000;
const redis = await startRedisServer();
const clients = [];
const gateways = [];
const gateway = (prefix) => {
  const client = new Redis({ host: '127.0.0.1', port: redis.port });
  clients.push(client);
  const gw = createAsyncGateway({
    id: 'gw-1',
    design: 'shared-counter',
    limit: LIMIT,
    windowMs: 60_000,
    gateways: 4,
    syncMs: 1_000,
    store: new RedisStore(client, { mode: 'buckets', prefix }),
  });
  gw.start();
  gateways.push(gw);
  return gw;
};
const ok = (_req, res) => res.end('ok');
const POLICY_VALUE = `"default";q=${LIMIT};w=60`;
const RATELIMIT_VALUE = `"default";r=${LIMIT - 1};t=60`;
const handlers = {
  bare: ok,
  'bare-headers': (_req, res) => {
    res.setHeader('RateLimit-Policy', POLICY_VALUE);
    res.setHeader('RateLimit', RATELIMIT_VALUE);
    res.end('ok');
  },
  'shared-counter-noheaders': withRateLimit(gateway('hip-a:'), ok, { standardHeaders: false }),
  'shared-counter': withRateLimit(gateway('hip-b:'), ok),
};
const socket = {
  remoteAddress: '127.0.0.1',
  remotePort: 1,
  on() {},
  once() {},
  removeListener() {},
  setTimeout() {},
};
const request = (handler) => {
  const req = new IncomingMessage(socket);
  req.method = 'GET';
  req.url = '/';
  req.httpVersionMajor = 1;
  req.httpVersionMinor = 1;
  req.httpVersion = '1.1';
  handler(req, new ServerResponse(req));
};
const cpuNs = () => {
  const c = process.cpuUsage();
  return (c.user + c.system) * 1000;
};
try {
  for (const gw of gateways) await gw.syncNow();
  const ns = Object.fromEntries(Object.keys(handlers).map((k) => [k, []]));
  for (let r = 0; r < ROUNDS; r++) {
    for (const [name, handler] of Object.entries(handlers)) {
      const c = cpuNs();
      for (let i = 0; i < N; i++) request(handler);
      ns[name].push((cpuNs() - c) / N);
      // a loop that blocks for seconds looks like a store outage to the gateways: let them sync
      for (const gw of gateways) await gw.syncNow();
    }
  }
  const median = (xs) => [...xs].sort((a, b) => a - b)[xs.length >> 1];
  const bare = median(ns.bare);
  for (const [name, xs] of Object.entries(ns)) {
    const m = median(xs);
    console.log(
      `${name.padEnd(26)} ${m.toFixed(0).padStart(5)} ns per request (+${(m - bare).toFixed(0)} over bare)`,
    );
  }
} finally {
  for (const gw of gateways) await gw.stop();
  for (const c of clients) c.disconnect();
  await redis.stop();
}
