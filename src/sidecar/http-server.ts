import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Registry } from 'prom-client';
import { costProblem, keyProblem } from '../config.js';
import type { Decision } from '../gateway/decision.js';
import { metricsHandler } from '../gateway/runtime/metrics.js';
import type { Decider } from './decider.js';
import type { SidecarMetrics } from './metrics.js';
import type { SidecarOptions } from './options.js';

/** The path NGINX's auth_request subrequest is proxied to. */
export const DECIDE_PATH = '/decide';

export interface SidecarHttpDeps {
  decider: Decider;
  options: SidecarOptions['http'];
  registry: Registry;
  metrics: SidecarMetrics;
  /** For /readyz: the first sync was tried and the sidecar is not shutting down. */
  ready: () => boolean;
}

function header(req: IncomingMessage, name: string): string | undefined {
  const v = req.headers[name];
  return Array.isArray(v) ? v[0] : v;
}

/**
 * The key of an auth_request subrequest: the first of the configured headers that is set, as
 * `name:value` (an API key and a client address never share a counter); '' when none is.
 */
export function keyOf(req: IncomingMessage, names: readonly string[]): string {
  for (const n of names) {
    const v = header(req, n);
    if (v !== undefined && v !== '') return `${n}:${v}`;
  }
  return '';
}

/** The cost header's value: a whole number, or NaN (a bad cost); 1 when absent. */
export function costOf(req: IncomingMessage, name: string | null): number {
  if (name === null) return 1;
  const v = header(req, name);
  if (v === undefined || v === '') return 1;
  return /^[0-9]{1,15}$/.test(v) ? Number(v) : Number.NaN;
}

function plain(
  res: ServerResponse,
  status: number,
  body: string,
  headers: Record<string, string> = {},
): void {
  res.writeHead(status, {
    ...headers,
    'Content-Type': 'text/plain; charset=utf-8',
    'Cache-Control': 'no-store',
  });
  res.end(body);
}

/**
 * The sidecar's HTTP side: NGINX's auth_request endpoint (`/decide`: 204 allowed, 429 limited, with
 * the RateLimit headers and Retry-After for `auth_request_set`), `/healthz` (the process answers),
 * `/readyz` (ready to decide) and `/metrics` (Prometheus text: the gateway's and the sidecar's).
 */
export function createSidecarHttpServer(deps: SidecarHttpDeps): Server {
  const { decider, options, metrics } = deps;
  const serveMetrics = metricsHandler(deps.registry);
  const answer = (res: ServerResponse, d: Decision) => {
    const h = decider.headers(d);
    if (d.allowed) {
      metrics.count('http', 'allowed');
      res.writeHead(204, h);
      res.end();
    } else {
      metrics.count('http', 'limited');
      plain(res, decider.limitedStatus, 'Too Many Requests\n', h);
    }
  };
  const invalid = (res: ServerResponse, action: 'reject' | 'skip', problem: string) => {
    if (action === 'skip') {
      metrics.count('http', 'skipped');
      res.writeHead(204);
      res.end();
      return;
    }
    metrics.count('http', 'invalid');
    plain(res, 400, `${problem}\n`);
  };
  const server = createServer((req, res) => {
    const url = req.url ?? '/';
    const path = url.includes('?') ? url.slice(0, url.indexOf('?')) : url;
    if (path === DECIDE_PATH) {
      const key = keyOf(req, options.keyHeaders);
      const kp =
        key === '' ? `no key: none of the headers ${options.keyHeaders.join(', ')} is set` : keyProblem(key);
      if (kp !== null) return invalid(res, decider.onInvalidKey, kp);
      const cost = costOf(req, options.costHeader);
      const cp = costProblem(cost);
      if (cp !== null) return invalid(res, decider.onInvalidCost, `${options.costHeader}: ${cp}`);
      const d = decider.decide(key, cost);
      if (d instanceof Promise) {
        d.then(
          (x) => answer(res, x),
          (err: unknown) => plain(res, 500, `${err instanceof Error ? err.message : String(err)}\n`),
        );
      } else answer(res, d);
      return;
    }
    if (path === '/healthz') return plain(res, 200, 'ok\n');
    if (path === '/readyz') {
      const ready = deps.ready();
      const s = decider.gateway.stats();
      res.writeHead(ready ? 200 : 503, { 'Content-Type': 'application/json', 'Cache-Control': 'no-store' });
      res.end(JSON.stringify({ ready, storeDown: s.storeDown, lastGoodAgeMs: s.lastGoodAgeMs }));
      return;
    }
    if (path === '/metrics') return serveMetrics(req, res);
    plain(res, 404, `not found: ${DECIDE_PATH}, /healthz, /readyz, /metrics\n`);
  });
  // longer than NGINX's upstream keepalive_timeout (60 s): the proxy, not the sidecar, closes an idle
  // connection, so NGINX never sends a decision on one the sidecar is closing
  server.keepAliveTimeout = 65_000;
  return server;
}
