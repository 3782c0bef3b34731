// The sidecar's HTTP side (NGINX auth_request) on the in-memory store: status codes, the headers
// NGINX passes on, keys and costs from headers, bad input, health, readiness, metrics, stop.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config-file.js';
import { parseNodes } from '../../src/sidecar/redis-client.js';
import { type Sidecar, startSidecar } from '../../src/sidecar/sidecar.js';
import { MemoryStore } from '../../src/store/memory-store.js';
import { runFleetlimit } from '../support/run-cli.js';

const BASE = {
  id: 'sc-1',
  design: 'shared-counter',
  limit: 3,
  windowMs: 60_000,
  gateways: 1,
  syncMs: 1_000,
  policyName: 'api',
  sidecar: { http: { port: 0, keyHeaders: ['x-api-key', 'x-real-ip'], costHeader: 'x-cost' } },
};

let sc: Sidecar | null = null;
afterEach(async () => {
  await sc?.stop();
  sc = null;
});

async function start(extra: Record<string, unknown> = {}): Promise<Sidecar> {
  sc = await startSidecar(loadConfig({ ...BASE, ...extra }), { store: new MemoryStore() });
  return sc;
}

function decide(s: Sidecar, headers: Record<string, string>): Promise<Response> {
  return fetch(`${s.httpUrl}/decide`, { headers });
}

describe('fleetlimit sidecar: the NGINX auth_request endpoint', () => {
  it('answers 204 with the RateLimit headers up to the limit, then 429 with Retry-After', async () => {
    const s = await start();
    const codes: number[] = [];
    let last: Response | undefined;
    for (let i = 0; i < 4; i++) {
      last = await decide(s, { 'x-api-key': 'k1' });
      codes.push(last.status);
      if (i === 0) {
        expect(last.headers.get('ratelimit-policy')).toBe('"api";q=3;w=60');
        expect(last.headers.get('ratelimit')).toBe('"api";r=2;t=60');
        expect(last.headers.get('retry-after')).toBeNull();
      }
    }
    expect(codes).toEqual([204, 204, 204, 429]);
    expect(last?.headers.get('ratelimit')).toMatch(/^"api";r=0;t=\d+$/);
    expect(Number(last?.headers.get('retry-after'))).toBeGreaterThan(0);
  });

  it('keys an IPv6 address in a header by its /56, or by http.ipv6Subnet', async () => {
    const s = await start();
    const one = await decide(s, { 'x-real-ip': '2001:db8:1:2::1' });
    const other64 = await decide(s, { 'x-real-ip': '2001:db8:1:3::9' });
    expect(one.headers.get('ratelimit')).toBe('"api";r=2;t=60');
    expect(other64.headers.get('ratelimit')).toBe('"api";r=1;t=60');
    await s.stop();
    const t = await start({ http: { ipv6Subnet: 64 } });
    await decide(t, { 'x-real-ip': '2001:db8:1:2::1' });
    const next64 = await decide(t, { 'x-real-ip': '2001:db8:1:3::9' });
    expect(next64.headers.get('ratelimit')).toBe('"api";r=2;t=60');
  });

  it('keys by the first header set, its name in front: an API key and an address never share a counter', async () => {
    const s = await start();
    for (let i = 0; i < 3; i++) expect((await decide(s, { 'x-api-key': 'same' })).status).toBe(204);
    expect((await decide(s, { 'x-api-key': 'same' })).status).toBe(429);
    expect((await decide(s, { 'x-real-ip': 'same' })).status).toBe(204);
    // the API key wins over the address when both are set
    expect((await decide(s, { 'x-api-key': 'same', 'x-real-ip': 'other' })).status).toBe(429);
    expect(s.gateway.limiterFor('x-real-ip:same')).toBeDefined();
  });

  it('takes the cost from the cost header; a cost over L is 429 without Retry-After', async () => {
    const s = await start();
    const r = await decide(s, { 'x-api-key': 'c', 'x-cost': '2' });
    expect(r.status).toBe(204);
    expect(r.headers.get('ratelimit')).toBe('"api";r=1;t=60');
    const over = await decide(s, { 'x-api-key': 'c2', 'x-cost': '4' });
    expect(over.status).toBe(429);
    expect(over.headers.get('retry-after')).toBeNull();
  });

  it('answers bad input with a 400 saying what is wrong, or lets it through with onInvalid* "skip"', async () => {
    const s = await start();
    const none = await decide(s, {});
    expect(none.status).toBe(400);
    expect(await none.text()).toMatch(/no key: none of the headers x-api-key, x-real-ip is set/);
    const long = await decide(s, { 'x-api-key': 'x'.repeat(2000) });
    expect(long.status).toBe(400);
    expect(await long.text()).toMatch(/maximum is 1024/);
    // the same line as a header, for NGINX (auth_request drops the body; nginx.conf's @fleetlimit);
    // the key is `x-api-key:` and the value
    expect(long.headers.get('fleetlimit-problem')).toBe('key is 2010 characters long; the maximum is 1024');
    for (const bad of ['0', '-1', '1.5', 'abc', '9'.repeat(20)]) {
      const r = await decide(s, { 'x-api-key': 'b', 'x-cost': bad });
      expect(r.status, bad).toBe(400);
      expect(await r.text()).toMatch(/^x-cost: cost must be a positive integer/);
    }
    await s.stop();
    const t = await start({ http: { onInvalidKey: 'skip', onInvalidCost: 'skip' } });
    const skipped = await decide(t, {});
    expect(skipped.status).toBe(204);
    expect(skipped.headers.get('ratelimit')).toBeNull();
    expect((await decide(t, { 'x-api-key': 'b', 'x-cost': 'x' })).status).toBe(204);
  });

  it('honours the http section: status, legacy and standard headers', async () => {
    const s = await start({
      limit: 1,
      http: { statusCode: 403, legacyHeaders: true, standardHeaders: false, policyName: 'edge' },
    });
    const ok = await decide(s, { 'x-api-key': 'h' });
    expect(ok.status).toBe(204);
    expect(ok.headers.get('ratelimit')).toBeNull();
    expect(ok.headers.get('x-ratelimit-limit')).toBe('1');
    const no = await decide(s, { 'x-api-key': 'h' });
    expect(no.status).toBe(403);
    expect(no.headers.get('retry-after')).not.toBeNull();
    expect(await no.text()).toBe('Too Many Requests\n');
    expect(no.headers.get('fleetlimit-body')).toBe('Too Many Requests');
  });

  it('answers a limited request with http.message, and repeats it in Fleetlimit-Body for NGINX', async () => {
    const s = await start({ limit: 1, http: { message: { error: 'rate_limited', détail: 'réessayez' } } });
    expect((await decide(s, { 'x-api-key': 'm' })).status).toBe(204);
    const no = await decide(s, { 'x-api-key': 'm' });
    expect(no.status).toBe(429);
    expect(no.headers.get('content-type')).toMatch(/^application\/json/);
    expect(await no.json()).toEqual({ error: 'rate_limited', détail: 'réessayez' });
    // one line of ASCII that is still the same JSON
    const header = no.headers.get('fleetlimit-body') as string;
    expect(header).toMatch(/^[\x20-\x7e]+$/);
    expect(JSON.parse(header)).toEqual({ error: 'rate_limited', détail: 'réessayez' });
    await s.stop();
    // a message too long for a header: the header says the default, the body is the message
    const t = await start({ limit: 1, http: { message: 'x'.repeat(3000) } });
    await decide(t, { 'x-api-key': 'm' });
    const long = await decide(t, { 'x-api-key': 'm' });
    expect(await long.text()).toBe('x'.repeat(3000));
    expect(long.headers.get('fleetlimit-body')).toBe('Too Many Requests');
  });

  it('serves /healthz, /readyz and /metrics, and 404 elsewhere', async () => {
    const s = await start();
    await decide(s, { 'x-api-key': 'm' });
    expect((await fetch(`${s.httpUrl}/healthz`)).status).toBe(200);
    const ready = await fetch(`${s.httpUrl}/readyz`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toMatchObject({ ready: true, storeDown: false });
    const m = await (await fetch(`${s.httpUrl}/metrics`)).text();
    expect(m).toMatch(/fleetlimit_sidecar_requests_total\{protocol="http",outcome="allowed"\} 1/);
    expect(m).toMatch(/fleetlimit_decisions_total/);
    expect((await fetch(`${s.httpUrl}/other`)).status).toBe(404);
  });

  it('stops: no more requests, a last sync pushes the admits', async () => {
    const store = new MemoryStore();
    const s = await startSidecar(loadConfig(BASE), { store });
    await decide(s, { 'x-api-key': 'z' });
    expect(s.gateway.stats().unsyncedAdmits).toBe(1);
    expect(await s.stop()).toBe(true);
    expect(s.gateway.stats().unsyncedAdmits).toBe(0);
    await expect(fetch(`${s.httpUrl}/healthz`)).rejects.toThrow();
  });
});

describe('the sidecar section of the configuration file', () => {
  it('is checked by loadConfig (so by fleetlimit validate), every bad field named', () => {
    const bad = {
      ...BASE,
      sidecar: {
        http: { port: 70000, keyHeaders: ['x api key'], costHeader: '' },
        grpc: { domain: '', descriptors: [[]] },
        maxDescriptors: 0,
        extra: 1,
      },
    };
    let message = '';
    try {
      loadConfig(bad);
    } catch (e) {
      message = (e as Error).message;
    }
    for (const field of [
      'sidecar.extra: is not an option',
      'sidecar.http.port: must be a TCP port',
      'sidecar.http.keyHeaders[0]: must be an HTTP header name',
      'sidecar.http.costHeader: must be an HTTP header name',
      'sidecar.grpc.domain: must be',
      'sidecar.grpc.descriptors[0]: must be a list of 1 to 8',
      'sidecar.maxDescriptors: must be an integer from 1 to 64',
    ])
      expect(message).toContain(field);
  });
});

describe('fleetlimit validate and the sidecar CLI', () => {
  it('validate names a bad sidecar field and exits 2', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'fl-sidecar-'));
    const good = join(dir, 'good.json');
    writeFileSync(good, JSON.stringify(BASE));
    expect((await runFleetlimit(['validate', good])).code).toBeUndefined();
    const bad = join(dir, 'bad.json');
    writeFileSync(bad, JSON.stringify({ ...BASE, sidecar: { grpc: { domain: 'edge' } } }));
    const r = await runFleetlimit(['validate', bad]);
    expect(r.code).toBe(2);
    expect(r.err).toContain('sidecar.grpc.descriptors: must be a list of 1 to 64 descriptor rules');
  });

  it('reads Redis Cluster startup nodes', () => {
    expect(parseNodes('127.0.0.1:7000,[::1]:7001')).toEqual([
      { host: '127.0.0.1', port: 7000 },
      { host: '::1', port: 7001 },
    ]);
    expect(() => parseNodes('127.0.0.1')).toThrow(/--redis-cluster: expected host:port/);
  });
});
