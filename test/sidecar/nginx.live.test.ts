// Two NGINX (the Debian package's, as our own processes, docs/examples/nginx.conf) + fleetlimit sidecar
// (the CLI) pairs sharing one redis-server, in front of one upstream: the RateLimit headers and
// Retry-After reach the client through NGINX, and a flood through both NGINX nodes admits per window
// what the simulator says for the same design, K, L, W, Δ and load (within 15 %, derived below), and no more than
// the design's bound. The longer comparison, three designs and several seeds: npm run sidecar:nginx
// (docs/nginx.md).
import { readFileSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CompareSettings, compareWithSimulator, startFleetFor } from '../support/proxy-compare.js';
import { type ProxyFleet, SIDECAR_NGINX_JSON, startProxyFleet } from '../support/proxy-fleet.js';
import { type RedisServer, startRedisServer } from '../support/redis-server.js';

let redis: RedisServer;
let fleet: ProxyFleet;
// shared-counter, K = 2, L = 20 per 1 s, Δ = 100 ms; the flood 10 × L per W (200 req/s) for 9 windows.
// The 15 % (scripts/live-sim-tolerance.ts): the flood's arrivals are seeded (seed 1); each sidecar
// draws its sync phase (a child process: no seed reaches it). The simulator's runs of the same 9 s,
// 2,000 seeds, land within 8.3 % of the mean of 200 (simSeeds, the reference) at the 99th percentile,
// 10.1 % at the 99.9th and at most: 15 % holds that with over 99.9 % confidence and leaves 4.9 points
// for NGINX, the sidecars and Redis. The flood was 3 s against a mean of 10 seeds before: by chance
// alone 1.5 % of runs then landed beyond 15 % (99.9th percentile 19.7 %), the test's flakes.
let settings: CompareSettings;

beforeAll(async () => {
  redis = await startRedisServer();
});
afterAll(async () => {
  await redis?.stop();
});

/** One GET through NGINX from the loopback address `from`; its status. */
function getFrom(agent: Agent, port: number, from: string, headers: Record<string, string>): Promise<number> {
  return new Promise((res, rej) => {
    const req = request(
      { host: '127.0.0.1', port, path: '/rotate', localAddress: from, headers, agent },
      (r) => {
        r.resume();
        r.on('end', () => res(r.statusCode ?? 0));
      },
    );
    req.on('error', rej);
    req.end();
  });
}

describe('the NGINX example as shipped: a client inventing an API key per request (issue 32)', () => {
  let example: ProxyFleet;
  beforeAll(async () => {
    // docs/examples/sidecar-nginx.json unchanged (adaptive-early, K = 2, api 100 and per-ip 300 per minute)
    // behind docs/examples/nginx.conf: its own two pairs, its own Redis keys
    example = await startProxyFleet({
      redisUrl: redis.url,
      pairs: 2,
      prefix: `nginx-rotate-${Date.now()}:`,
      gateway: {},
    });
  });
  afterAll(async () => {
    await example?.stop();
  });

  it('500 requests from one address, each with a fresh x-api-key: held to the per-address limit', async () => {
    // from an address of its own (NGINX's $remote_addr, which becomes X-Real-IP); alternately through
    // both NGINX nodes, as a load balancer spreads them; bounded: 500 requests, one at a time
    const agent = new Agent({ keepAlive: true, maxSockets: 4 });
    const statuses: Record<number, number> = {};
    const deadline = Date.now() + 60_000;
    try {
      for (let i = 0; i < 500 && Date.now() < deadline; i++) {
        const port = example.nginxPorts[i % example.nginxPorts.length];
        const s = await getFrom(agent, port, '127.0.0.2', { 'x-api-key': `invented-${i}` });
        statuses[s] = (statuses[s] ?? 0) + 1;
      }
    } finally {
      agent.destroy();
    }
    const admitted = example.arrivals.get('/rotate')?.length ?? 0;
    console.log(`key rotation through the NGINX example: ${admitted} of 500 admitted`, statuses);
    expect((statuses[200] ?? 0) + (statuses[429] ?? 0)).toBe(500);
    expect(statuses[200] ?? 0).toBe(admitted);
    // per-ip: 300 per minute for the address, whatever the key (500 of 500 before issue 32). Its design,
    // adaptive-early, holds a flood's onset to at most 1.2 × L (docs/designs.md; 223–297 measured
    // here); adaptive would let each of the K sidecars take a new key's L before the first sync (457
    // measured)
    expect(admitted).toBeLessThanOrEqual(1.2 * 300);
    expect(admitted).toBeGreaterThanOrEqual(150);
  });
});

describe('NGINX auth_request + fleetlimit sidecar, two pairs on one Redis', () => {
  beforeAll(async () => {
    settings = {
      redisUrl: redis.url,
      design: 'shared-counter',
      gateways: 2,
      limit: 20,
      windowMs: 1000,
      syncMs: 100,
      load: 10,
      durationMs: 9000,
      warmupMs: 300,
      seed: 1,
      simSeeds: 200,
      prefix: `nginx-${Date.now()}:`,
    };
    fleet = await startFleetFor(settings);
  });
  afterAll(async () => {
    await fleet?.stop();
  });

  it('passes the RateLimit headers, the 429 and Retry-After on; without x-api-key it keys by address', async () => {
    const url = `http://127.0.0.1:${fleet.nginxPorts[0]}/h`;
    const get = (h: Record<string, string> = {}) => fetch(url, { headers: h });
    const a = await get({ 'x-api-key': 'h' });
    expect(a.status).toBe(200);
    expect(await a.text()).toBe('ok\n');
    expect(a.headers.get('ratelimit-policy')).toBe('"api";q=20;w=1');
    expect(a.headers.get('ratelimit')).toBe('"api";r=19;t=1');
    expect(a.headers.get('retry-after')).toBeNull();
    // this gateway counts its own admits at once: the 21st within the second is refused
    const statuses: number[] = [];
    let limited: Response | undefined;
    for (let i = 0; i < 24 && limited === undefined; i++) {
      const r = await get({ 'x-api-key': 'h' });
      statuses.push(r.status);
      if (r.status === 429) limited = r;
      else await r.arrayBuffer();
    }
    expect(limited, statuses.join(',')).toBeDefined();
    expect(limited?.headers.get('ratelimit')).toMatch(/^"api";r=0;t=1$/);
    expect(limited?.headers.get('retry-after')).toBe('1');
    expect(await limited?.text()).toBe('Too Many Requests\n');
    // a bad key is the client's 400 with the sidecar's reason, not NGINX's 503 (issue 36)
    const bad = await get({ 'x-api-key': 'k'.repeat(2000) });
    expect(bad.status).toBe(400);
    expect(await bad.text()).toBe('Bad Request: api: key is 2010 characters long; the maximum is 1024\n');
    expect(fleet.arrivals.get('/h')?.length).toBe(statuses.filter((s) => s === 200).length + 1);
    // without x-api-key the sidecar keys by X-Real-IP, which NGINX sets: a counter of its own
    const b = await get();
    expect(b.status).toBe(200);
    // (NGINX's readiness probes in the fleet's start count on this key too)
    expect(b.headers.get('ratelimit')).toMatch(/^"api";r=\d+;t=1$/);
  });

  it('/login is held to the second policy, keyed by the client address even with an API key', async () => {
    const get = (h: Record<string, string> = {}) =>
      fetch(`http://127.0.0.1:${fleet.nginxPorts[1]}/login`, { headers: h });
    // docs/examples: sidecar.policies.login is 10 per minute, keyed by X-Real-IP (NGINX's $remote_addr)
    const a = await get({ 'x-api-key': 'login-a' });
    expect(a.status).toBe(200);
    expect(a.headers.get('ratelimit-policy')).toBe('"login";q=10;w=60');
    expect(a.headers.get('ratelimit')).toBe('"login";r=9;t=60');
    // another API key, the same address: the same counter
    const b = await get({ 'x-api-key': 'login-b' });
    expect(b.headers.get('ratelimit')).toBe('"login";r=8;t=60');
    let limited: Response | undefined;
    for (let i = 0; i < 10 && limited === undefined; i++) {
      const r = await get();
      if (r.status === 429) limited = r;
      else await r.arrayBuffer();
    }
    expect(limited?.headers.get('ratelimit-policy')).toBe('"login";q=10;w=60');
    // leases-ask (the example's login design): the 429 waits until the first login leaves, ~60 s on
    expect(Number(limited?.headers.get('retry-after'))).toBeGreaterThanOrEqual(58);
    // the rest of the site is still the top-level policy, by API key
    const other = await fetch(`http://127.0.0.1:${fleet.nginxPorts[1]}/x`, {
      headers: { 'x-api-key': 'login-a' },
    });
    expect(other.status).toBe(200);
    expect(other.headers.get('ratelimit')).toBe('"api";r=19;t=1');
  });

  it('a flood through both NGINX nodes: admitted per window within 15 % of the simulator, at most K·L', async () => {
    const r = await compareWithSimulator(settings, fleet);
    expect(r.live.statuses[200] + r.live.statuses[429]).toBe(r.live.sent);
    expect(Math.abs(r.diff), JSON.stringify(r)).toBeLessThanOrEqual(0.15);
    // shared-counter's bound: each gateway admits at most L per window on its own count, K·L together.
    // It holds in the sidecars' frame. Counted at the upstream by arrival, a loaded machine's delays
    // bunch admits into one window (2.15 × L at load 8, 3.35 at load 15): no bound holds there. So the
    // bound is checked on the admits certainly decided within one window (sent and answered inside
    // it), a lower bound of the sidecars' worst window under any load. Without the bound (a gateway
    // that never counts its own admits) the flood, 10 × L per window, shows far above it.
    console.log(`nginx flood: ${JSON.stringify(r.live)}`);
    expect(r.live.definiteWorstWindow, JSON.stringify(r)).toBeLessThanOrEqual(2);
  });

  it('SIGTERM: each sidecar makes its last sync and exits 0', async () => {
    const codes = fleet.sidecars.map((c) => new Promise((res) => c.once('exit', (code) => res(code))));
    await fleet.stop();
    expect(await Promise.all(codes)).toEqual([0, 0]);
    for (const err of fleet.stderr) expect(err).toContain('stopped (last sync answered)');
  });
});

describe('NGINX + sidecar, a login policy on leases-ask: remaining and Retry-After tell the truth (issue 31)', () => {
  // 5 logins per minute over three gateways (two pairs run here), Δ = 1 s: main answered every 429
  // with Retry-After: 1 where the true wait was 35-60 s, and its 200s showed r=1, 0, 1, 0
  let login: ProxyFleet;
  beforeAll(async () => {
    const base = JSON.parse(readFileSync(SIDECAR_NGINX_JSON, 'utf8'));
    login = await startProxyFleet({
      redisUrl: redis.url,
      pairs: 2,
      prefix: `nginx-login-${Date.now()}:`,
      gateway: {
        design: 'leases-ask',
        gateways: 3,
        syncMs: 1000,
        // leases-ask asks the store on the request path; a CI machine under load once took longer
        // than the default 200 ms, so the ask fell to fail mode local (granted slots only) and the
        // first login was refused. Timeouts are not what this test is about.
        storeTimeoutMs: 2000,
        // the limited answer's body, which NGINX repeats from the sidecar's Fleetlimit-Body header
        http: { message: { error: 'too_many_logins' } },
        // the shipped policies kept (its HTTP settings name per-ip), the login one set to 5 per minute
        sidecar: {
          ...base.sidecar,
          policies: { ...base.sidecar.policies, login: { limit: 5, windowMs: 60_000 } },
        },
      },
    });
  });
  afterAll(async () => {
    await login?.stop();
  });

  it('the 200s count down 4 … 0; the 429 waits until the first login leaves, on either node', async () => {
    const post = (node: number) => fetch(`http://127.0.0.1:${login.nginxPorts[node]}/login`);
    // the first login is made between these two instants
    const sent = Date.now();
    let answered = 0;
    const shown: string[] = [];
    for (let i = 0; i < 5; i++) {
      const r = await post(0);
      if (i === 0) answered = Date.now();
      expect(r.status, login.stderr.join('\n')).toBe(200);
      shown.push((r.headers.get('ratelimit') ?? '').replace(/;t=\d+$/, ''));
      await r.arrayBuffer();
    }
    expect(shown).toEqual([4, 3, 2, 1, 0].map((n) => `"login";r=${n}`));
    const check = async (node: number) => {
      const r = await post(node);
      expect(r.status).toBe(429);
      const now = Date.now();
      const retryAfter = Number(r.headers.get('retry-after'));
      // whole seconds, rounded up: within Δ = 1 s of the first login's leaving
      expect(retryAfter).toBeGreaterThanOrEqual(Math.floor((sent + 60_000 - now) / 1000));
      expect(retryAfter).toBeLessThanOrEqual(Math.ceil((answered + 60_000 - now) / 1000 + 1.05));
      expect(JSON.parse(await r.text())).toEqual({ error: 'too_many_logins' });
    };
    await check(0);
    // the other node's sidecar learns it from the store once the first has pushed (within Δ)
    await new Promise((r) => setTimeout(r, 1_100));
    await check(1);
  });
});
