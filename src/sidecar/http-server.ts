import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Registry } from 'prom-client';
import { costProblem, keyProblem } from '../config.js';
import type { Decision } from '../gateway/decision.js';
import { metricsHandler } from '../gateway/runtime/metrics.js';
import { addressKey, DEFAULT_IPV6_SUBNET } from '../http/client-address.js';
import { type RequestReading, requestReading, SKIP_REQUEST } from '../http/request-reader.js';
import { bindingDecision, type Decider, type PolicyDecider } from './decider.js';
import type { SidecarMetrics } from './metrics.js';
import type { HttpKeying, SidecarOptions } from './options.js';
import { headerText, MAX_HEADER_BODY } from './proxy-header.js';

/** The path NGINX's auth_request subrequest is proxied to: the top-level policy; `/decide/<name>`: a named one. */
export const DECIDE_PATH = '/decide';
const DECIDE_PREFIX = `${DECIDE_PATH}/`;

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
 * `name:value` (an API key and a client address never share a counter); '' when none is. A value
 * that is an IPv6 address is keyed by its `ipv6Subnet` network (`x-real-ip:2001:db8:1234:5600::/56`).
 */
export function keyOf(
  req: IncomingMessage,
  names: readonly string[],
  ipv6Subnet: number | false = DEFAULT_IPV6_SUBNET,
): string {
  for (const n of names) {
    const v = header(req, n);
    if (v !== undefined && v !== '') return `${n}:${addressKey(v, ipv6Subnet)}`;
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

/** What answering a request needs: the decider, each policy's reader, the counters. */
interface Answering {
  decider: Decider;
  /** Each policy's key and cost, read from its headers (its own, or the top level's). */
  readers: ReadonlyMap<string, RequestReading<IncomingMessage>>;
  metrics: SidecarMetrics;
  /** The limited body again as a header (for a proxy that drops the body). */
  limitedHeader: string;
}

function answer(a: Answering, res: ServerResponse, p: PolicyDecider, d: Decision): void {
  const h = p.headers(d);
  if (d.allowed) {
    a.metrics.count('http', 'allowed');
    res.writeHead(204, h);
    res.end();
    return;
  }
  a.metrics.count('http', 'limited');
  // the body again as a header, for a proxy that drops it (NGINX auth_request: nginx.conf's @fleetlimit)
  res.writeHead(a.decider.limitedStatus, {
    ...h,
    'Content-Type': a.decider.limitedContentType,
    'Cache-Control': 'no-store',
    'Fleetlimit-Body': a.limitedHeader,
  });
  res.end(a.decider.limitedBody);
}

function failed(res: ServerResponse, err: unknown): void {
  plain(res, 500, `${err instanceof Error ? err.message : String(err)}\n`);
}

function invalid(a: Answering, res: ServerResponse, action: 'reject' | 'skip', problem: string): void {
  if (action === 'skip') {
    a.metrics.count('http', 'skipped');
    res.writeHead(204);
    res.end();
    return;
  }
  a.metrics.count('http', 'invalid');
  plain(res, 400, `${problem}\n`, {
    // for a proxy that drops the body (nginx.conf's @fleetlimit answers the client's 400 with it)
    'Fleetlimit-Problem': headerText(problem.slice(0, 200), 1200) ?? 'bad request',
  });
}

/**
 * How a policy reads a request: http/core's RequestReader (the middleware's checks and actions), the
 * key from the first of its key headers that is set, the cost from its cost header; a problem names
 * the headers.
 */
function readerOf(
  decider: Decider,
  { keyHeaders: kh, costHeader: ch }: HttpKeying,
): RequestReading<IncomingMessage> {
  const none = `no key: none of the headers ${kh.join(', ')} is set`;
  return requestReading<IncomingMessage>({
    key: (req) => keyOf(req, kh, decider.ipv6Subnet),
    cost: ch === null ? undefined : (req) => costOf(req, ch),
    onKey: decider.onInvalidKey,
    onCost: decider.onInvalidCost,
    keyProblem: (key) => (key === '' ? none : keyProblem(key)),
    costProblem: (cost) => {
      const p = costProblem(cost);
      return p === null ? null : `${ch}: ${p}`;
    },
  });
}

/** Every policy's reader: its own key and cost headers, or the top level's. */
function readers(
  decider: Decider,
  options: SidecarOptions['http'],
): Map<string, RequestReading<IncomingMessage>> {
  const top = { keyHeaders: options.keyHeaders, costHeader: options.costHeader };
  const out = new Map<string, RequestReading<IncomingMessage>>();
  // the policies a path can name are the configuration's: a reader each, never one made per request
  for (const name of decider.policies.keys())
    out.set(name, readerOf(decider, options.policies.get(name) ?? top));
  return out;
}

/**
 * One request held to each of `names` (NGINX has one auth_request per location, so `/decide/a,b` is
 * how a location gets two limits): every key and cost checked first, so a bad one answers before any
 * policy counts the request; then the policies decide in the path's order, and the first that refuses
 * answers: the ones after it neither count the request nor make state for its key (issue 32: with the
 * address's limit first, a client inventing an API key per request makes no key, and so no store
 * work, once its address is over the limit). If every one admits, the answer is the admit with the
 * fewest left.
 */
function decide(a: Answering, req: IncomingMessage, res: ServerResponse, names: readonly string[]): void {
  const { decider } = a;
  const asks: { p: PolicyDecider; key: string; cost: number }[] = [];
  for (const name of names) {
    const read = a.readers.get(name) as RequestReading<IncomingMessage>;
    const at = names.length > 1 ? `${name}: ` : '';
    const key = read.key(req, '');
    if (typeof key !== 'string') {
      if (key === SKIP_REQUEST) continue; // 'skip': this policy does not limit the request
      invalid(a, res, 'reject', `${at}${key.problem}`);
      return;
    }
    const cost = read.cost(req);
    if (typeof cost !== 'number') {
      if (cost === SKIP_REQUEST) continue;
      invalid(a, res, 'reject', `${at}${cost.problem}`);
      return;
    }
    asks.push({ p: decider.policy(name) as PolicyDecider, key, cost });
  }
  if (asks.length === 0) {
    invalid(a, res, 'skip', '');
    return;
  }
  if (asks.length === 1) {
    const { p, key, cost } = asks[0];
    const d = p.decide(key, cost);
    if (d instanceof Promise)
      d.then(
        (x) => answer(a, res, p, x),
        (err: unknown) => failed(res, err),
      );
    else answer(a, res, p, d);
    return;
  }
  const ds: Decision[] = [];
  /** Keeps policy i's decision; a refusal answers at once (false: ask no further). */
  const took = (i: number, d: Decision): boolean => {
    ds.push(d);
    if (d.allowed) return true;
    answer(a, res, asks[i].p, d);
    return false;
  };
  // in order; a decision that waits on the store (central-log, leases-ask) holds the ones after it
  const from = (i: number): void => {
    for (; i < asks.length; i++) {
      const { p, key, cost } = asks[i];
      const d = p.decide(key, cost);
      if (d instanceof Promise) {
        const at = i;
        d.then(
          (x) => (took(at, x) ? from(at + 1) : undefined),
          (err: unknown) => failed(res, err),
        );
        return;
      }
      if (!took(i, d)) return;
    }
    const b = bindingDecision(ds);
    answer(a, res, asks[b].p, ds[b]);
  };
  from(0);
}

/** /readyz: ready, and every policy's gateway: the store is down if it is for any, the oldest good sync counts. */
function readyz(decider: Decider, ready: boolean, res: ServerResponse): void {
  const policies: Record<string, { storeDown: boolean; lastGoodAgeMs: number }> = {};
  let storeDown = false;
  let lastGoodAgeMs = 0;
  for (const [name, p] of decider.policies) {
    const s = p.gateway.stats();
    policies[name] = { storeDown: s.storeDown, lastGoodAgeMs: s.lastGoodAgeMs };
    storeDown ||= s.storeDown;
    lastGoodAgeMs = Math.max(lastGoodAgeMs, s.lastGoodAgeMs);
  }
  res.writeHead(ready ? 200 : 503, { 'Content-Type': 'application/json', 'Cache-Control': 'no-store' });
  res.end(JSON.stringify({ ready, storeDown, lastGoodAgeMs, policies }));
}

/**
 * The sidecar's HTTP side: NGINX's auth_request endpoint (`/decide`, the top-level policy,
 * `/decide/<policy>` or `/decide/<policy>,<policy>`: 204 allowed, 429 limited, with the RateLimit headers and Retry-After for
 * `auth_request_set`), `/healthz` (the process answers),
 * `/readyz` (ready to decide) and `/metrics` (Prometheus text: the gateway's and the sidecar's).
 */
export function createSidecarHttpServer(deps: SidecarHttpDeps): Server {
  const { decider, options, metrics } = deps;
  const serveMetrics = metricsHandler(deps.registry);
  const a: Answering = {
    decider,
    readers: readers(decider, options),
    metrics,
    limitedHeader: headerText(decider.limitedBody, MAX_HEADER_BODY) ?? 'Too Many Requests',
  };
  const server = createServer((req, res) => {
    const url = req.url ?? '/';
    const path = url.includes('?') ? url.slice(0, url.indexOf('?')) : url;
    if (path === DECIDE_PATH) return decide(a, req, res, [decider.defaultName]);
    if (path.startsWith(DECIDE_PREFIX)) {
      // a policy name never holds a comma (POLICY_NAME): `a,b` is a list; a name twice counts once
      const names = [...new Set(path.slice(DECIDE_PREFIX.length).split(','))];
      const unknown = names.find((n) => decider.policy(n) === undefined);
      if (unknown !== undefined) {
        // the proxy's configuration names a policy this sidecar does not have: not the client's fault,
        // but no decision either (NGINX turns the 404 into its error page)
        metrics.count('http', 'invalid');
        return plain(
          res,
          404,
          `no policy named ${JSON.stringify(unknown.slice(0, 100))}; the policies are ${[...decider.policies.keys()].map((n) => `${DECIDE_PREFIX}${n}`).join(', ')} (and ${DECIDE_PATH}; several: ${DECIDE_PREFIX}a,b)\n`,
        );
      }
      return decide(a, req, res, names);
    }
    if (path === '/healthz') return plain(res, 200, 'ok\n');
    if (path === '/readyz') return readyz(decider, deps.ready(), res);
    if (path === '/metrics') return serveMetrics(req, res);
    plain(res, 404, `not found: ${DECIDE_PATH}, ${DECIDE_PREFIX}<policy>, /healthz, /readyz, /metrics\n`);
  });
  // longer than NGINX's upstream keepalive_timeout (60 s): the proxy, not the sidecar, closes an idle
  // connection, so NGINX never sends a decision on one the sidecar is closing
  server.keepAliveTimeout = 65_000;
  return server;
}
