import { once } from 'node:events';
import { Cluster, Redis, type RedisOptions } from 'ioredis';
import type { RedisClient } from '../store/redis/script.js';

/** A connection with a command in flight and no data for this long is dropped (see failFast). */
const SOCKET_TIMEOUT_MS = 10_000;

/** The fail-fast client options of docs/production.md: the runtime times calls out and decides by its fail mode. */
function failFast(storeTimeoutMs: number): RedisOptions {
  return {
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    autoResendUnfulfilledCommands: false,
    // ioredis's socketTimeout is a plain timer: an event loop busy past it (a burst of 10,000 calls
    // held this one over 1 s) fires it before the reply waiting on the socket is read, and a healthy
    // connection is dropped with its calls (issue 32, item 1). It only has to catch a connection that
    // stops answering for good; the runtime's own timeouts already cover a store that is slow.
    socketTimeout: Math.max(SOCKET_TIMEOUT_MS, 5 * storeTimeoutMs),
    connectTimeout: 1000,
    disconnectTimeout: 100,
    retryStrategy: (n) => Math.min(50 * 2 ** Math.min(n, 10), 1000),
  };
}

/** host:port pairs of a Redis Cluster's startup nodes ("127.0.0.1:7000,127.0.0.1:7001"). */
export function parseNodes(raw: string): { host: string; port: number }[] {
  return raw.split(',').map((hp) => {
    const i = hp.lastIndexOf(':');
    const port = Number(hp.slice(i + 1));
    if (i <= 0 || !Number.isInteger(port) || port < 1 || port > 65535) {
      throw new Error(`--redis-cluster: expected host:port[,host:port…], got "${raw}"`);
    }
    return { host: hp.slice(0, i).replace(/^\[|\]$/g, ''), port };
  });
}

/**
 * A client for the sidecar's store: one Redis (a URL) or a Redis Cluster (startup nodes), with the
 * production settings. It waits for the connection at most `waitMs`: a Redis that is down at start
 * is the fail mode's to handle, not a reason not to start.
 */
export async function connectRedis(
  target: { url: string } | { cluster: { host: string; port: number }[] },
  storeTimeoutMs: number,
  onError: (err: Error) => void,
  waitMs = 1000,
): Promise<RedisClient> {
  const opts = failFast(storeTimeoutMs);
  const client: RedisClient =
    'url' in target
      ? new Redis(target.url, opts)
      : new Cluster(target.cluster, { enableOfflineQueue: false, redisOptions: opts });
  client.on('error', onError);
  const timer = AbortSignal.timeout(waitMs);
  await once(client, 'ready', { signal: timer }).catch(() => undefined);
  return client;
}
