/**
 * The HTTP servers under test, all in this one process (the load comes from autocannon in another):
 *   tsx bench/http-servers.ts REDIS_PORT
 * Prints {"name": port, ...} once every server listens on 127.0.0.1, then serves until SIGTERM.
 * Every server answers GET / with "ok"; every limiter keys on the client address with a limit of
 * 10^9 per 60 s, so nearly every request is admitted and the figures are the limiter's overhead.
 * fleetlimit runs on RedisStore in compact (buckets) mode, the store whose memory does not grow with
 * the limit; the peers keep one fixed-window counter per key in Redis.
 */
import {
  createServer,
  type IncomingMessage,
  type RequestListener,
  type Server,
  type ServerResponse,
} from 'node:http';
import express from 'express';
import { rateLimit } from 'express-rate-limit';
import { Redis } from 'ioredis';
import { RedisStore as ErlRedisStore, type RedisReply } from 'rate-limit-redis';
import { RateLimiterRedis, type RateLimiterRes } from 'rate-limiter-flexible';
import { expressRateLimit, withRateLimit } from '../dist/http/index.js';
import { type AsyncGateway, createAsyncGateway, type DesignId } from '../dist/index.js';
import { RedisStore } from '../dist/store/redis/index.js';

const redisPort = Number(process.argv[2]);
const LIMIT = 1_000_000_000;
const clients: Redis[] = [];
const gateways: AsyncGateway[] = [];
const servers: Server[] = [];

function redis(): Redis {
  const c = new Redis({ host: '127.0.0.1', port: redisPort, maxRetriesPerRequest: 1 });
  clients.push(c);
  return c;
}

function gateway(design: DesignId, prefix: string): AsyncGateway {
  const gw = createAsyncGateway({
    id: 'gw-1',
    design,
    limit: LIMIT,
    windowMs: 60_000,
    gateways: 4,
    syncMs: 1_000,
    store: new RedisStore(redis(), { mode: 'buckets', prefix }),
  });
  gw.start();
  gateways.push(gw);
  return gw;
}

const ok = (_req: IncomingMessage, res: ServerResponse): void => {
  res.end('ok');
};

function rlfHandler(): RequestListener {
  const rl = new RateLimiterRedis({ storeClient: redis(), points: LIMIT, duration: 60, keyPrefix: 'rlf' });
  const headers = (res: ServerResponse, r: RateLimiterRes) => {
    res.setHeader('X-RateLimit-Limit', String(LIMIT));
    res.setHeader('X-RateLimit-Remaining', String(r.remainingPoints));
    res.setHeader('X-RateLimit-Reset', String(Math.ceil((Date.now() + r.msBeforeNext) / 1000)));
  };
  return (req, res) => {
    rl.consume(req.socket.remoteAddress ?? 'unknown').then(
      (r) => {
        headers(res, r);
        ok(req, res);
      },
      (r: unknown) => {
        if (r instanceof Error) {
          res.statusCode = 500;
          res.end('error');
          return;
        }
        res.statusCode = 429;
        res.setHeader('Retry-After', String(Math.ceil((r as RateLimiterRes).msBeforeNext / 1000)));
        res.end('Too Many Requests');
      },
    );
  };
}

function expressApp(kind: 'bare' | 'erl' | 'fleetlimit'): RequestListener {
  const app = express();
  app.disable('x-powered-by');
  app.disable('etag');
  if (kind === 'erl') {
    const client = redis();
    app.use(
      rateLimit({
        windowMs: 60_000,
        limit: LIMIT,
        standardHeaders: 'draft-8',
        legacyHeaders: false,
        store: new ErlRedisStore({
          prefix: 'erl:',
          sendCommand: (command: string, ...args: string[]) =>
            client.call(command, ...args) as Promise<RedisReply>,
        }),
      }),
    );
  } else if (kind === 'fleetlimit') {
    app.use(expressRateLimit(gateway('shared-counter', 'fle:')));
  }
  app.get('/', (_req, res) => {
    res.end('ok');
  });
  return app as unknown as RequestListener;
}

// node:http's own cost of two headers the size of shared-counter's, with constant values: the
// share of bare's throughput that any limiter sending them gives up before deciding anything
const POLICY_VALUE = `"default";q=${LIMIT};w=60`;
const RATELIMIT_VALUE = `"default";r=${LIMIT - 1};t=60`;
const bareHeaders = (_req: IncomingMessage, res: ServerResponse): void => {
  res.setHeader('RateLimit-Policy', POLICY_VALUE);
  res.setHeader('RateLimit', RATELIMIT_VALUE);
  res.end('ok');
};

const handlers: Record<string, RequestListener> = {
  bare: ok,
  'bare-headers': bareHeaders,
  'shared-counter': withRateLimit(gateway('shared-counter', 'fls:'), ok),
  // the limiter's own cost: the same without the two RateLimit headers node:http validates and writes
  'shared-counter-noheaders': withRateLimit(gateway('shared-counter', 'fln:'), ok, {
    standardHeaders: false,
  }),
  'central-log': withRateLimit(gateway('central-log', 'flc:'), ok),
  'rlf-redis': rlfHandler(),
  'express-bare': expressApp('bare'),
  'express-rate-limit': expressApp('erl'),
  'express-shared-counter': expressApp('fleetlimit'),
};

// Requests answered per server, and this process's CPU, read by the bench between runs ("cpu" on
// stdin): only one server is loaded at a time, so the CPU used over a run is that server's cost.
const served: Record<string, number> = {};
const ports: Record<string, number> = {};
for (const [name, h] of Object.entries(handlers)) {
  served[name] = 0;
  const srv = createServer((req, res) => {
    served[name]++;
    h(req, res);
  });
  servers.push(srv);
  ports[name] = await new Promise<number>((resolve) => {
    srv.listen(0, '127.0.0.1', () => {
      const a = srv.address();
      resolve(typeof a === 'object' && a !== null ? a.port : 0);
    });
  });
}
process.stdout.write(`${JSON.stringify(ports)}\n`);
let line = '';
process.stdin.on('data', (d) => {
  line += d.toString();
  for (let nl = line.indexOf('\n'); nl >= 0; nl = line.indexOf('\n')) {
    line = line.slice(nl + 1);
    const { user, system } = process.cpuUsage();
    process.stdout.write(`${JSON.stringify({ cpuUs: user + system, served })}\n`);
  }
});

process.once('SIGTERM', async () => {
  for (const s of servers) s.closeAllConnections();
  await Promise.all(servers.map((s) => new Promise((r) => s.close(r))));
  await Promise.all(gateways.map((g) => g.stop()));
  for (const c of clients) c.disconnect();
  process.exit(0);
});
