/**
 * The per-request central service the sidecar bench compares with: what Envoy's reference rate
 * limit service does, one Redis round trip per request (INCRBY + EXPIRE pipelined, a fixed window per
 * key), behind the same two doors as the sidecar — HTTP `/decide` keyed by x-api-key, and Envoy's
 * ShouldRateLimit over gRPC (the same vendored proto). Usage:
 *   node --import tsx bench/sidecar-baseline.ts '{"redisUrl":…,"limit":100,"windowMs":60000}'
 * prints "READY <http port> <grpc port>" and runs until SIGTERM.
 */
import { createServer } from 'node:http';
import * as grpc from '@grpc/grpc-js';
import { Redis } from 'ioredis';
import { loadRateLimitService } from '../src/sidecar/grpc-server.js';

const cfg = JSON.parse(process.argv[2]) as { redisUrl: string; limit: number; windowMs: number };
const redis = new Redis(cfg.redisUrl, { maxRetriesPerRequest: 0 });
redis.on('error', () => {});
const windowS = Math.ceil(cfg.windowMs / 1000);

/** One round trip: the key's count in this fixed window after adding `hits`. */
async function hit(key: string, hits: number): Promise<number> {
  const w = Math.floor(Date.now() / cfg.windowMs);
  const k = `central:${key}:${w}`;
  const r = await redis.pipeline().incrby(k, hits).expire(k, windowS).exec();
  return Number(r?.[0]?.[1] ?? 0);
}

const http = createServer((req, res) => {
  const key = req.headers['x-api-key'];
  if (typeof key !== 'string' || key === '') {
    res.writeHead(400);
    res.end('no key\n');
    return;
  }
  hit(key, 1).then(
    (n) => {
      const remaining = Math.max(0, cfg.limit - n);
      res.writeHead(n <= cfg.limit ? 204 : 429, { RateLimit: `"default";r=${remaining};t=${windowS}` });
      res.end();
    },
    () => {
      res.writeHead(500);
      res.end();
    },
  );
});
http.keepAliveTimeout = 65_000;

const server = new grpc.Server();
server.addService(loadRateLimitService().service, {
  ShouldRateLimit: (
    call: grpc.ServerUnaryCall<
      { domain: string; descriptors: { entries: { key: string; value: string }[] }[]; hits_addend: number },
      unknown
    >,
    cb: grpc.sendUnaryData<unknown>,
  ) => {
    const d = call.request.descriptors;
    Promise.all(
      d.map((x) =>
        hit(x.entries.map((e) => `${e.key}=${e.value}`).join('|'), Math.max(1, call.request.hits_addend)),
      ),
    ).then(
      (ns) => {
        const statuses = ns.map((n) => ({
          code: n <= cfg.limit ? 'OK' : 'OVER_LIMIT',
          current_limit: { requests_per_unit: cfg.limit, unit: 'MINUTE', name: 'default' },
          limit_remaining: Math.max(0, cfg.limit - n),
        }));
        cb(null, { overall_code: statuses.every((s) => s.code === 'OK') ? 'OK' : 'OVER_LIMIT', statuses });
      },
      (err: Error) => cb({ code: grpc.status.UNAVAILABLE, details: err.message }),
    );
  },
});

http.listen(0, '127.0.0.1', () => {
  server.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (err, grpcPort) => {
    if (err !== null) throw err;
    process.stdout.write(`READY ${(http.address() as { port: number }).port} ${grpcPort}\n`);
  });
});
process.once('SIGTERM', () => {
  server.forceShutdown();
  http.closeAllConnections();
  http.close();
  redis.disconnect();
});
