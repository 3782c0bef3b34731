// Envoy's rate limit service on the sidecar, driven by a grpc-js client built from the same vendored
// proto, on a real redis-server: every field mapping (domain, descriptors, entries, hits_addend at
// both levels, per-descriptor statuses, the headers to add), bad input, the fail modes with Redis
// killed, readiness and the graceful stop.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as grpc from '@grpc/grpc-js';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config-file.js';
import { loadRateLimitService } from '../../src/sidecar/grpc-server.js';
import { type Sidecar, startSidecar } from '../../src/sidecar/sidecar.js';
import { RedisStore } from '../../src/store/redis/index.js';
import { ROOT } from '../docs/doc-blocks.js';
import { type RedisServer, startRedisServer, usingExternalRedis } from '../support/redis-server.js';

const Rls = loadRateLimitService();

interface Status {
  code: string;
  current_limit: { name: string; requests_per_unit: number; unit: string } | null;
  limit_remaining: number;
  duration_until_reset: { seconds: string; nanos: number } | null;
}
interface Answer {
  overall_code: string;
  statuses: Status[];
  response_headers_to_add: { key: string; value: string }[];
}

type Entry = [string, string];
interface Desc {
  entries: Entry[];
  hits?: number | string;
  negative?: boolean;
}

function client(address: string): grpc.Client & { ShouldRateLimit: grpc.requestCallback<unknown> } {
  return new Rls(address, grpc.credentials.createInsecure()) as never;
}

function ask(c: ReturnType<typeof client>, domain: string, descriptors: Desc[], hits = 0): Promise<Answer> {
  const req = {
    domain,
    hits_addend: hits,
    descriptors: descriptors.map((d) => ({
      entries: d.entries.map(([key, value]) => ({ key, value })),
      ...(d.hits === undefined ? {} : { hits_addend: { value: String(d.hits) } }),
      ...(d.negative === undefined ? {} : { is_negative_hits: d.negative }),
    })),
  };
  return new Promise((resolve, reject) =>
    (
      c.ShouldRateLimit as unknown as (
        r: unknown,
        cb: (e: grpc.ServiceError | null, a: Answer) => void,
      ) => void
    )(req, (err, a) => (err === null ? resolve(a) : reject(err))),
  );
}

function headers(a: Answer): Record<string, string> {
  return Object.fromEntries(a.response_headers_to_add.map((h) => [h.key, h.value]));
}

// docs/examples/sidecar-envoy.json (what docs/envoy.md shows: api_key held to the top-level policy
// "api", remote_address to "per-ip"), with small numbers (L = 3 per minute for both), free ports and
// a two-entry rule added
const DOC = JSON.parse(readFileSync(join(ROOT, 'docs/examples/sidecar-envoy.json'), 'utf8'));
const BASE = {
  ...DOC,
  design: 'shared-counter',
  limit: 3,
  windowMs: 60_000,
  gateways: 1,
  syncMs: 100,
  storeTimeoutMs: 50,
  sidecar: {
    ...DOC.sidecar,
    policies: { 'per-ip': { ...DOC.sidecar.policies['per-ip'], limit: 3 } },
    http: { ...DOC.sidecar.http, port: 0 },
    grpc: {
      ...DOC.sidecar.grpc,
      port: 0,
      descriptors: [...DOC.sidecar.grpc.descriptors, ['plan', 'api_key']],
    },
    maxDescriptors: 4,
  },
};

let redis: RedisServer;
const clients: Redis[] = [];
async function sidecar(id: string, extra: Record<string, unknown> = {}): Promise<Sidecar> {
  const r = new Redis(redis.url, { enableOfflineQueue: false, maxRetriesPerRequest: 0 });
  r.on('error', () => {});
  await new Promise((res) => r.once('ready', res));
  clients.push(r);
  return startSidecar(loadConfig({ ...BASE, id, redis: { prefix: `grpc-${Date.now()}:` }, ...extra }), {
    store: new RedisStore(r),
  });
}

beforeAll(async () => {
  redis = await startRedisServer();
});
afterAll(async () => {
  for (const r of clients) r.disconnect();
  await redis?.stop();
});

describe('fleetlimit sidecar: Envoy rate limit service (gRPC)', () => {
  let sc: Sidecar;
  let c: ReturnType<typeof client>;
  beforeAll(async () => {
    sc = await sidecar('rls-1');
    c = client(sc.grpcAddress as string);
  });
  afterAll(async () => {
    c?.close();
    await sc?.stop();
  });

  it('maps a descriptor to the policy and a key: limit, remaining, time to reset, headers', async () => {
    const a = await ask(c, 'edge', [{ entries: [['api_key', 'a']] }]);
    expect(a.overall_code).toBe('OK');
    expect(a.statuses).toHaveLength(1);
    const s = a.statuses[0];
    expect(s.code).toBe('OK');
    expect(s.current_limit).toEqual({ name: 'api', requests_per_unit: 3, unit: 'MINUTE' });
    expect(s.limit_remaining).toBe(2);
    expect(Number(s.duration_until_reset?.seconds)).toBeGreaterThan(58);
    expect(headers(a)).toEqual({ 'RateLimit-Policy': '"api";q=3;w=60', RateLimit: '"api";r=2;t=60' });
    expect(sc.gateway.limiterFor('api_key=a')).toBeDefined();
  });

  it('hits_addend is the cost; a descriptor’s own hits_addend wins over the request’s', async () => {
    const a = await ask(c, 'edge', [{ entries: [['api_key', 'h']] }], 2);
    expect(a.statuses[0].limit_remaining).toBe(1);
    const b = await ask(c, 'edge', [{ entries: [['api_key', 'h']], hits: 1 }], 3);
    expect(b.overall_code).toBe('OK');
    expect(b.statuses[0].limit_remaining).toBe(0);
    const over = await ask(c, 'edge', [{ entries: [['api_key', 'h']] }]);
    expect(over.overall_code).toBe('OVER_LIMIT');
    expect(over.statuses[0].code).toBe('OVER_LIMIT');
    expect(over.statuses[0].limit_remaining).toBe(0);
    // until a retry can succeed: shared-counter's next sync here (Δ = 100 ms)
    const d = over.statuses[0].duration_until_reset;
    expect(Number(d?.seconds) * 1000 + (d?.nanos ?? 0) / 1e6).toBeGreaterThan(0);
    expect(Number(headers(over)['Retry-After'])).toBeGreaterThan(0);
  });

  it('is_negative_hits (field 4 on the wire) takes admits back: OK, never counted; floored at none', async () => {
    for (let i = 0; i < 3; i++) await ask(c, 'edge', [{ entries: [['api_key', 'neg']] }]);
    expect((await ask(c, 'edge', [{ entries: [['api_key', 'neg']] }])).overall_code).toBe('OVER_LIMIT');
    const back = await ask(c, 'edge', [{ entries: [['api_key', 'neg']], hits: 2, negative: true }]);
    expect(back.overall_code).toBe('OK');
    expect(back.statuses[0]).toMatchObject({ code: 'OK', current_limit: { requests_per_unit: 3 } });
    // a refund binds no headers: it counted nothing
    expect(back.response_headers_to_add).toEqual([]);
    // the admits were pushed (Δ = 100 ms): the store takes them back at the next sync round, and the
    // sidecar's view follows at the reply after it
    await new Promise((r) => setTimeout(r, 500));
    expect((await ask(c, 'edge', [{ entries: [['api_key', 'neg']] }])).statuses[0].limit_remaining).toBe(1);
    expect((await ask(c, 'edge', [{ entries: [['api_key', 'neg']] }])).statuses[0].limit_remaining).toBe(0);
    expect((await ask(c, 'edge', [{ entries: [['api_key', 'neg']] }])).overall_code).toBe('OVER_LIMIT');
    // a key this sidecar admitted nothing on: nothing to take back
    const none = await ask(c, 'edge', [{ entries: [['api_key', 'neg-none']], negative: true }]);
    expect(none.statuses[0]).toMatchObject({ code: 'OK', limit_remaining: 3 });
    expect((await ask(c, 'edge', [{ entries: [['api_key', 'neg-none']] }], 3)).overall_code).toBe('OK');
  });

  it('several descriptors: each its own status, OVER_LIMIT if any is, a descriptor no rule matches is not limited', async () => {
    await ask(c, 'edge', [{ entries: [['remote_address', '10.0.0.1']] }], 3);
    const a = await ask(c, 'edge', [
      { entries: [['path', '/x']] },
      { entries: [['remote_address', '10.0.0.1']] },
      {
        entries: [
          ['plan', 'free'],
          ['api_key', 'm'],
        ],
      },
    ]);
    expect(a.overall_code).toBe('OVER_LIMIT');
    expect(a.statuses.map((s) => s.code)).toEqual(['OK', 'OVER_LIMIT', 'OK']);
    expect(a.statuses[0].current_limit).toBeNull();
    expect(a.statuses[2].limit_remaining).toBe(2);
    expect(sc.gateway.limiterFor('plan=free|api_key=m')).toBeDefined();
    // the headers are the rejection's: remote_address is held to the policy "per-ip"
    expect(a.statuses[1].current_limit).toEqual({ name: 'per-ip', requests_per_unit: 3, unit: 'MINUTE' });
    expect(headers(a).RateLimit).toMatch(/^"per-ip";r=0;t=\d+$/);
    // entries in another order, or another set of keys, match no rule
    const b = await ask(c, 'edge', [
      {
        entries: [
          ['api_key', 'm'],
          ['plan', 'free'],
        ],
      },
    ]);
    expect(b.statuses[0].current_limit).toBeNull();
    expect(b.response_headers_to_add).toEqual([]);
  });

  it('an unknown domain is not limited (as Envoy’s reference service); empty domain or descriptors are INVALID_ARGUMENT', async () => {
    const a = await ask(c, 'other', [{ entries: [['api_key', 'a']] }]);
    expect(a.overall_code).toBe('OK');
    expect(a.statuses).toEqual([
      { code: 'OK', current_limit: null, limit_remaining: 0, duration_until_reset: null, quota: null },
    ]);
    await expect(ask(c, '', [{ entries: [['api_key', 'a']] }])).rejects.toMatchObject({
      code: grpc.status.INVALID_ARGUMENT,
      details: 'domain must not be empty',
    });
    await expect(ask(c, 'edge', [])).rejects.toMatchObject({
      code: grpc.status.INVALID_ARGUMENT,
      details: 'descriptors must not be empty',
    });
    await expect(ask(c, 'edge', [{ entries: [] }])).rejects.toMatchObject({
      details: 'descriptors[0] has no entries',
    });
    await expect(ask(c, 'edge', [{ entries: [['api_key', '']] }])).rejects.toMatchObject({
      code: grpc.status.INVALID_ARGUMENT,
    });
    await expect(ask(c, 'edge', [{ entries: [['api_key', 'x'.repeat(2000)]] }])).rejects.toMatchObject({
      details: expect.stringMatching(/maximum is 1024/),
    });
    const five = Array.from({ length: 5 }, () => ({ entries: [['api_key', 'a']] as Entry[] }));
    await expect(ask(c, 'edge', five)).rejects.toMatchObject({
      details: '5 descriptors; at most 4 are taken (sidecar.maxDescriptors)',
    });
  });

  it('a huge hits_addend is OVER_LIMIT at once, without Retry-After and without the store', async () => {
    const before = sc.gateway.stats().keys;
    const a = await ask(c, 'edge', [{ entries: [['api_key', 'huge']] }], 4_294_967_295);
    expect(a.overall_code).toBe('OVER_LIMIT');
    expect(headers(a)['Retry-After']).toBeUndefined();
    const b = await ask(c, 'edge', [{ entries: [['api_key', 'huge']], hits: '18446744073709551615' }]);
    expect(b.overall_code).toBe('OVER_LIMIT');
    expect(sc.gateway.stats().keys).toBe(before);
    // the key is untouched: a request of cost 1 is admitted
    expect((await ask(c, 'edge', [{ entries: [['api_key', 'huge']] }])).overall_code).toBe('OK');
  });

  it('counts its answers in /metrics', async () => {
    const m = await (await fetch(`${sc.httpUrl}/metrics`)).text();
    expect(m).toMatch(/fleetlimit_sidecar_requests_total\{protocol="grpc",outcome="allowed"\} [1-9]/);
    expect(m).toMatch(/fleetlimit_sidecar_requests_total\{protocol="grpc",outcome="limited"\} [1-9]/);
    expect(m).toMatch(/fleetlimit_sidecar_requests_total\{protocol="grpc",outcome="invalid"\} [1-9]/);
  });
});

describe('a login policy on leases-ask: remaining and the time to wait tell the truth (issue 31)', () => {
  // 5 per minute over three gateways (two sidecars run here, on one prefix), Δ = 1 s: main said
  // limit_remaining 0 on the first OK and duration_until_reset 0.55 s on the OVER_LIMIT
  const prefix = `grpc-login-${Date.now()}:`;
  const login = {
    design: 'leases-ask',
    limit: 5,
    windowMs: 60_000,
    gateways: 3,
    syncMs: 1_000,
    redis: { prefix },
  };
  const scs: Sidecar[] = [];
  const cs: ReturnType<typeof client>[] = [];
  beforeAll(async () => {
    for (const id of ['rls-login-a', 'rls-login-b']) {
      const sc = await sidecar(id, login);
      // its first sync learns the store's clock (until then it decides degraded)
      for (let tries = 0; tries < 50 && !(await sc.gateway.syncNow()); tries++)
        await new Promise((r) => setTimeout(r, 20));
      scs.push(sc);
      cs.push(client(sc.grpcAddress as string));
    }
  });
  afterAll(async () => {
    for (const c of cs) c.close();
    for (const sc of scs) await sc.stop();
  });

  it('limit_remaining counts down 4 … 0; the OVER_LIMIT waits until the first leaves, on either sidecar', async () => {
    // the first login is made between these two instants
    let sent = 0;
    let answered = 0;
    const remaining: number[] = [];
    for (let i = 0; i < 5; i++) {
      if (i === 0) sent = Date.now();
      const a = await ask(cs[0], 'edge', [{ entries: [['api_key', 'login']] }]);
      if (i === 0) answered = Date.now();
      expect(a.overall_code).toBe('OK');
      remaining.push(a.statuses[0].limit_remaining);
    }
    expect(remaining).toEqual([4, 3, 2, 1, 0]);
    const check = async (c: ReturnType<typeof client>) => {
      const a = await ask(c, 'edge', [{ entries: [['api_key', 'login']] }]);
      expect(a.overall_code).toBe('OVER_LIMIT');
      const d = a.statuses[0].duration_until_reset;
      const wait = Number(d?.seconds) + (d?.nanos ?? 0) / 1e9;
      const now = Date.now();
      // within Δ = 1 s of the first login's leaving (50 ms for the store clock's estimate)
      expect(wait).toBeGreaterThanOrEqual((sent + 60_000 - now) / 1000 - 0.05);
      expect(wait).toBeLessThanOrEqual((answered + 60_000 - now) / 1000 + 1.05);
      expect(Number(headers(a)['Retry-After'])).toBe(Math.max(1, Math.ceil(wait)));
    };
    await check(cs[0]);
    // once the first sidecar has pushed them, the other's ask learns the same from the store
    await scs[0].gateway.syncNow();
    await check(cs[1]);
  });
});

describe('two policies: each descriptor counted against its own policy (issue 22)', () => {
  // the top-level policy "api" (L = 3 per minute) for api_key, "per-ip" (L = 5 per minute) for
  // remote_address; NGINX's /decide/per-ip keys by x-real-ip
  let sc: Sidecar;
  let c: ReturnType<typeof client>;
  beforeAll(async () => {
    sc = await sidecar('rls-two', {
      sidecar: {
        ...BASE.sidecar,
        policies: { 'per-ip': { limit: 5, windowMs: 60_000 } },
        http: { port: 0, policies: { 'per-ip': { keyHeaders: ['x-real-ip'] } } },
      },
    });
    c = client(sc.grpcAddress as string);
  });
  afterAll(async () => {
    c?.close();
    await sc?.stop();
  });
  const both = (apiKey: string) =>
    ask(c, 'edge', [{ entries: [['api_key', apiKey]] }, { entries: [['remote_address', '10.9.9.9']] }]);

  it('each status carries its policy’s name, L and unit; each counter runs to its own limit', async () => {
    const remaining: [number, number][] = [];
    const answers: Answer[] = [];
    for (let i = 0; i < 4; i++) {
      const a = await both('two');
      answers.push(a);
      remaining.push([a.statuses[0].limit_remaining, a.statuses[1].limit_remaining]);
    }
    expect(answers[0].statuses.map((s) => s.current_limit)).toEqual([
      { name: 'api', requests_per_unit: 3, unit: 'MINUTE' },
      { name: 'per-ip', requests_per_unit: 5, unit: 'MINUTE' },
    ]);
    // api_key is over after 3; the address, counted each time as Envoy's reference service counts
    // every descriptor, has 5 − 4 = 1 left
    expect(remaining).toEqual([
      [2, 4],
      [1, 3],
      [0, 2],
      [0, 1],
    ]);
    expect(answers.map((a) => a.overall_code)).toEqual(['OK', 'OK', 'OK', 'OVER_LIMIT']);
    expect(answers[3].statuses.map((s) => s.code)).toEqual(['OVER_LIMIT', 'OK']);
    expect(headers(answers[3]).RateLimit).toMatch(/^"api";r=0;t=\d+$/);
    // another API key from the same address: its own key is fresh, the address runs out at its 5th
    const a = await both('other');
    expect(a.statuses.map((s) => [s.code, s.limit_remaining])).toEqual([
      ['OK', 2],
      ['OK', 0],
    ]);
    expect(headers(a)).toEqual({ 'RateLimit-Policy': '"per-ip";q=5;w=60', RateLimit: '"per-ip";r=0;t=60' });
    const b = await both('other');
    expect(b.statuses.map((s) => s.code)).toEqual(['OK', 'OVER_LIMIT']);
    expect(headers(b).RateLimit).toMatch(/^"per-ip";r=0;t=\d+$/);
    // each policy's gateway holds its own keys, and Redis keeps each policy's counts apart
    expect(sc.gateway.limiterFor('api_key=two')).toBeDefined();
    expect(sc.gateway.limiterFor('remote_address=10.9.9.9')).toBeUndefined();
    expect(sc.gateways.get('per-ip')?.limiterFor('remote_address=10.9.9.9')).toBeDefined();
    for (const g of sc.gateways.values()) expect(await g.syncNow()).toBe(true);
    const r = new Redis(redis.url);
    try {
      // (the helper's RedisStore has the default prefix; these keys are this test's alone)
      const keys = await r.keys('*');
      expect(
        keys.some((k) => /\[api=3\/60000s\]:api_key=two$/.test(k)),
        keys.join('\n'),
      ).toBe(true);
      expect(
        keys.some((k) => /\[per-ip=5\/60000s\]:remote_address=10\.9\.9\.9$/.test(k)),
        keys.join('\n'),
      ).toBe(true);
      expect(keys.some((k) => /\[api=3\/60000s\]:remote_address=/.test(k))).toBe(false);
    } finally {
      r.disconnect();
    }
  });

  it('the HTTP side picks its policy by path: /decide the top-level one, /decide/per-ip the named one', async () => {
    const ip = await fetch(`${sc.httpUrl}/decide/per-ip`, { headers: { 'x-real-ip': '10.9.9.9' } });
    expect(ip.status).toBe(204);
    // x-real-ip:10.9.9.9 is another key than Envoy's remote_address=10.9.9.9: a counter of its own
    expect(ip.headers.get('ratelimit-policy')).toBe('"per-ip";q=5;w=60');
    expect(ip.headers.get('ratelimit')).toBe('"per-ip";r=4;t=60');
    const key = await fetch(`${sc.httpUrl}/decide`, { headers: { 'x-api-key': 'h' } });
    expect(key.status).toBe(204);
    expect(key.headers.get('ratelimit')).toBe('"api";r=2;t=60');
    const ready = await (await fetch(`${sc.httpUrl}/readyz`)).json();
    expect(Object.keys(ready.policies)).toEqual(['api', 'per-ip']);
    const m = await (await fetch(`${sc.httpUrl}/metrics`)).text();
    expect(m).toMatch(/fleetlimit_store_down\{gateway="rls-two\/per-ip"\} 0/);
    expect(m).toMatch(/fleetlimit_store_down\{gateway="rls-two"\} 0/);
  });
});

describe.skipIf(usingExternalRedis)('fail modes with Redis killed, readiness, the graceful stop', () => {
  it('local splits L over K, closed rejects, open admits; the stop ends the gRPC server', async () => {
    // K = 2, L = 4: the local fail mode admits ceil(L/K) = 2 per gateway
    const opts = { gateways: 2, limit: 4 };
    const local = await sidecar('fm-local', { ...opts, failMode: 'local' });
    const closed = await sidecar('fm-closed', { ...opts, failMode: 'closed' });
    const open = await sidecar('fm-open', { ...opts, failMode: 'open' });
    const cs = [local, closed, open].map((s) => client(s.grpcAddress as string));
    try {
      const one = (i: number, key: string) => ask(cs[i], 'edge', [{ entries: [['api_key', key]] }]);
      expect((await one(0, 'before')).overall_code).toBe('OK');
      expect(await (await fetch(`${local.httpUrl}/readyz`)).json()).toMatchObject({
        ready: true,
        storeDown: false,
      });
      await redis.kill9();
      // down after staleAfterMs = 2·Δ + storeTimeoutMs = 250 ms without an answered sync
      const deadline = Date.now() + 3000;
      // every sidecar, not only the first: each syncs on its own phase, and one still deciding as
      // usual would answer OK (the CI dry run saw closed's four OKs)
      const all = [local, closed, open];
      while (all.some((s) => !s.gateway.stats().storeDown) && Date.now() < deadline)
        await new Promise((r) => setTimeout(r, 50));
      for (const s of all) expect(s.gateway.stats().storeDown).toBe(true);
      const codes = async (i: number) => {
        const out: string[] = [];
        for (let n = 0; n < 4; n++) out.push((await one(i, 'outage')).overall_code);
        return out;
      };
      expect(await codes(0)).toEqual(['OK', 'OK', 'OVER_LIMIT', 'OVER_LIMIT']);
      expect(await codes(1)).toEqual(['OVER_LIMIT', 'OVER_LIMIT', 'OVER_LIMIT', 'OVER_LIMIT']);
      expect(await codes(2)).toEqual(['OK', 'OK', 'OK', 'OK']);
      // still ready: the fail mode decides; /readyz says the store is down
      const ready = await fetch(`${local.httpUrl}/readyz`);
      expect(ready.status).toBe(200);
      expect(await ready.json()).toMatchObject({ ready: true, storeDown: true });
      const m = await (await fetch(`${local.httpUrl}/metrics`)).text();
      expect(m).toMatch(/fleetlimit_decisions_total\{[^}]*degraded="true"[^}]*\} [1-9]/);
    } finally {
      for (const c of cs) c.close();
      // the last sync fails (Redis is gone) but the stop completes, bounded by storeTimeoutMs
      const t0 = Date.now();
      expect(await local.stop()).toBe(false);
      expect(Date.now() - t0).toBeLessThan(2000);
      await closed.stop();
      await open.stop();
      await redis.restart();
    }
    const after = client(local.grpcAddress as string);
    await expect(
      ask(after, 'edge', [{ entries: [['api_key', 'x']] }]).finally(() => after.close()),
    ).rejects.toMatchObject({ code: grpc.status.UNAVAILABLE });
  });
});
