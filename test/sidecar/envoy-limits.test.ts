// The sidecar answering from envoyproxy/ratelimit files (issue 36), on the in-memory store with fake
// timers: the matching rules of that service's README (key alone, value, wildcard, nested, depth,
// replaces, unlimited, requests_per_unit 0, shadow mode), hits_addend, its answers' fields, and a
// reload that keeps unchanged limits' gateways and counts. Through gRPC on Redis: envoy-yaml.live.test.ts.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Registry } from 'prom-client';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { loadConfig } from '../../src/config-file.js';
import type { RlsAnswer, RlsAnswered, RlsRequest } from '../../src/sidecar/envoy.js';
import { EnvoyLimits, limitPolicyName } from '../../src/sidecar/envoy-limits.js';
import { findLimit } from '../../src/sidecar/envoy-match.js';
import { reloadEnvoyConfig, watchEnvoyConfig } from '../../src/sidecar/envoy-watch.js';
import { EnvoyConfigError, parseEnvoyConfig, readEnvoyConfig } from '../../src/sidecar/envoy-yaml.js';
import { policyCommon } from '../../src/sidecar/options.js';
import { MemoryStore } from '../../src/store/memory-store.js';

const GOOD = join(import.meta.dirname, 'envoy-configs/good');
const CONFIG = readEnvoyConfig(GOOD);

type Entry = [string, string];
function req(
  domain: string,
  descriptors: (Entry[] | { entries: Entry[]; hits: number })[],
  hits = 0,
): RlsRequest {
  return {
    domain,
    hits_addend: hits,
    descriptors: descriptors.map((d) => {
      const entries = (Array.isArray(d) ? d : d.entries).map(([key, value]) => ({ key, value }));
      return Array.isArray(d) ? { entries } : { entries, hits_addend: { value: String(d.hits) } };
    }),
  };
}

async function answered(a: RlsAnswer): Promise<RlsAnswered> {
  if (!a.ok) throw new Error(a.problem);
  return a.answered;
}

let limits: EnvoyLimits;
let registry: Registry;
function make(config = CONFIG, common: Record<string, unknown> = {}, store = new MemoryStore()): EnvoyLimits {
  registry = new Registry();
  return new EnvoyLimits(
    {
      common: { id: 'edge-1', design: 'shared-counter', gateways: 1, syncMs: 1000, ...common },
      store,
      maxDescriptors: 8,
      ipv6Subnet: 56,
      registry,
    },
    config,
  );
}

async function ask(domain: string, descriptors: Parameters<typeof req>[1], hits = 0) {
  return (await answered(limits.answer(req(domain, descriptors, hits)))).response;
}

async function hitsMetric(limit: string, stat: string): Promise<number> {
  const m = await registry.getSingleMetric('fleetlimit_sidecar_envoy_hits_total')?.get();
  return m?.values.find((v) => v.labels.limit === limit && v.labels.stat === stat)?.value ?? 0;
}

beforeEach(async () => {
  vi.useFakeTimers({ now: 1_800_000_000_000 });
  limits = make();
  await limits.start();
});
afterEach(async () => {
  await limits.stop();
  vi.useRealTimers();
});

describe('matching, as envoyproxy/ratelimit documents it', () => {
  const at = (domain: string, ...entries: Entry[]) =>
    findLimit(
      CONFIG,
      domain,
      entries.map(([key, value]) => ({ key, value })),
    )?.fullKey ?? null;

  it('a value beats a wildcard, a wildcard beats the key alone; each level by the entries in order', () => {
    expect(at('edge', ['remote_address', '10.0.0.1'])).toBe('edge.remote_address');
    expect(at('edge', ['remote_address', '50.0.0.5'])).toBe('edge.remote_address_50.0.0.5');
    expect(at('edge', ['path', '/api/users'])).toBe('edge.path_/api/*');
    expect(at('edge', ['path', '/api/health'])).toBe('edge.path_/api/health');
    expect(at('edge', ['path', '/web'])).toBeNull();
    expect(at('edge', ['plan', 'free'], ['api_key', 'k'])).toBe('edge.plan_free.api_key');
    expect(at('messaging', ['message_type', 'marketing'], ['to_number', '1'])).toBe(
      'messaging.message_type_marketing.to_number',
    );
    expect(at('messaging', ['to_number', '1'])).toBe('messaging.to_number');
  });

  it('a descriptor deeper or shallower than the configuration is not limited (example 4)', () => {
    expect(at('edge', ['plan', 'free'])).toBeNull();
    expect(at('edge', ['remote_address', '10.0.0.1'], ['path', '/x'])).toBeNull();
    expect(at('edge', ['plan', 'pro'], ['api_key', 'k'])).toBeNull();
    expect(at('other', ['remote_address', '10.0.0.1'])).toBeNull();
  });

  it('a value that is not UTF-8 matches only a key with no value', () => {
    const bad = new Uint8Array([0x2f, 0x61, 0xff]);
    expect(findLimit(CONFIG, 'edge', [{ key: 'path', value: bad }])).toBeNull();
    expect(findLimit(CONFIG, 'edge', [{ key: 'remote_address', value: bad }])?.fullKey).toBe(
      'edge.remote_address',
    );
  });
});

describe('answers, as envoyproxy/ratelimit answers', () => {
  it('a key with no value: each distinct value its own limit, with current_limit, remaining and reset', async () => {
    for (let i = 0; i < 3; i++) await ask('edge', [[['remote_address', '10.0.0.1']]]);
    const over = await ask('edge', [[['remote_address', '10.0.0.1']]]);
    expect(over.overall_code).toBe('OVER_LIMIT');
    expect(over.statuses[0]).toMatchObject({
      code: 'OVER_LIMIT',
      current_limit: { name: '', requests_per_unit: 3, unit: 'MINUTE' },
      limit_remaining: 0,
    });
    const other = await ask('edge', [[['remote_address', '10.0.0.2']]]);
    expect(other.statuses[0]).toMatchObject({ code: 'OK', limit_remaining: 2 });
    expect(other.statuses[0].duration_until_reset?.seconds).toBeGreaterThan(0);
    expect(await hitsMetric('edge.remote_address', 'over_limit')).toBe(1);
    expect(await hitsMetric('edge.remote_address', 'within_limit')).toBe(4);
  });

  it('requests_per_unit 0 refuses every request until the unit’s end; unlimited is OK with remaining 2^32 − 1', async () => {
    const a = await ask('edge', [
      [['remote_address', '50.0.0.5']],
      [['path', '/api/health']],
      [['path', '/web']],
    ]);
    expect(a.overall_code).toBe('OVER_LIMIT');
    expect(a.statuses[0]).toMatchObject({
      code: 'OVER_LIMIT',
      current_limit: { requests_per_unit: 0, unit: 'SECOND' },
      limit_remaining: 0,
      duration_until_reset: { seconds: 1, nanos: 0 },
    });
    expect(a.statuses[1]).toEqual({ code: 'OK', limit_remaining: 4_294_967_295 });
    expect(a.statuses[2]).toEqual({ code: 'OK' });
  });

  it('a wildcard: each matching value its own count of the wildcard’s limit', async () => {
    await ask('edge', [[['path', '/api/a']]], 2);
    expect((await ask('edge', [[['path', '/api/a']]])).overall_code).toBe('OVER_LIMIT');
    expect((await ask('edge', [[['path', '/api/b']]])).statuses[0].limit_remaining).toBe(1);
  });

  it('hits_addend: a descriptor’s own wins over the request’s; the request’s 0 counts as 1', async () => {
    const a = await ask(
      'edge',
      [
        {
          entries: [
            ['plan', 'free'],
            ['api_key', 'k'],
          ],
          hits: 3,
        },
      ],
      1,
    );
    expect(a.statuses[0].limit_remaining).toBe(1);
    const b = await ask(
      'edge',
      [
        [
          ['plan', 'free'],
          ['api_key', 'k'],
        ],
      ],
      0,
    );
    expect(b.statuses[0].limit_remaining).toBe(0);
    expect(
      (
        await ask(
          'edge',
          [
            [
              ['plan', 'free'],
              ['api_key', 'j'],
            ],
          ],
          4,
        )
      ).statuses[0].limit_remaining,
    ).toBe(0);
  });

  it('shadow mode: over the limit is answered OK (remaining 0) and counted as shadow_mode; not so without it', async () => {
    const a = [
      ['service', 'auth'],
      ['user', 'user-a'],
    ] as Entry[];
    const b = [
      ['service', 'auth'],
      ['user', 'user-b'],
    ] as Entry[];
    await ask('edge', [a, b]);
    const r = await ask('edge', [a, b]);
    expect(r.statuses.map((s) => s.code)).toEqual(['OK', 'OVER_LIMIT']);
    expect(r.statuses[0]).toMatchObject({ limit_remaining: 0, current_limit: { requests_per_unit: 1 } });
    const shadowOnly = await ask('edge', [a]);
    expect(shadowOnly.overall_code).toBe('OK');
    expect(shadowOnly.response_headers_to_add).toEqual([]);
    expect(await hitsMetric('edge.service.user_user-a', 'shadow_mode')).toBe(2);
    expect(await hitsMetric('edge.service.user_user-a', 'over_limit')).toBe(2);
    expect(await hitsMetric('edge.service.user_user-b', 'shadow_mode')).toBe(0);
  });

  it('replaces (example 7): sent together, the replaced limit is neither checked nor counted', async () => {
    const one = [
      ['key_1', 'value_1'],
      ['user', 'bkthomps'],
    ] as Entry[];
    const two = [
      ['key_2', 'value_2'],
      ['user', 'bkthomps'],
    ] as Entry[];
    const both = await ask('edge', [one, two], 5);
    expect(both.statuses[0]).toEqual({ code: 'OK' });
    expect(both.statuses[1]).toMatchObject({
      code: 'OK',
      limit_remaining: 5,
      current_limit: { requests_per_unit: 10 },
    });
    // key_1's own 5 per second untouched
    expect((await ask('edge', [one])).statuses[0]).toMatchObject({
      limit_remaining: 4,
      current_limit: { name: 'specific_limit' },
    });
  });

  it('detailed_metric: the value in the metric’s label; a week’s unit', async () => {
    const r = await ask('edge', [[['tenant', 'acme']]]);
    expect(r.statuses[0].current_limit).toEqual({ name: '', requests_per_unit: 2, unit: 'WEEK' });
    expect(await hitsMetric('edge.tenant_acme', 'total_hits')).toBe(1);
    expect(await hitsMetric('edge.tenant', 'total_hits')).toBe(0);
  });

  it('headers from the binding limit; bad requests are refused before anything is counted', async () => {
    const r = await ask('edge', [[['remote_address', '10.0.0.9']]]);
    expect(Object.fromEntries(r.response_headers_to_add.map((h) => [h.key, h.value]))).toEqual({
      'RateLimit-Policy': '"edge.remote_address";q=3;w=60',
      RateLimit: '"edge.remote_address";r=2;t=60',
    });
    const tooMany = limits.answer(
      req(
        'edge',
        Array.from({ length: 9 }, () => [['tenant', 't']] as Entry[]),
      ),
    );
    expect(tooMany).toEqual({
      ok: false,
      problem: '9 descriptors; at most 8 are taken (sidecar.maxDescriptors)',
    });
    const long = limits.answer(req('edge', [[['tenant', 'u']], [['tenant', 'x'.repeat(2000)]]]));
    expect(long.ok).toBe(false);
    expect(await hitsMetric('edge.tenant_u', 'total_hits')).toBe(0);
  });
});

describe('is_negative_hits: the descriptor’s hits taken back (newer Envoy releases)', () => {
  const refund = (ip: string, hits: number): RlsRequest => ({
    domain: 'edge',
    hits_addend: 0,
    descriptors: [
      {
        entries: [{ key: 'remote_address', value: ip }],
        hits_addend: { value: String(hits) },
        is_negative_hits: true,
      },
    ],
  });
  const ip = (v: string) => [[['remote_address', v]]] as Entry[][];

  it('takes back this sidecar’s admits of the window: OK, no headers, counted as total_negative_hits, not as hits', async () => {
    for (let i = 0; i < 3; i++) await ask('edge', ip('10.9.0.1'));
    expect((await ask('edge', ip('10.9.0.1'))).overall_code).toBe('OVER_LIMIT');
    const r = (await answered(limits.answer(refund('10.9.0.1', 2)))).response;
    expect(r).toMatchObject({
      overall_code: 'OK',
      statuses: [{ code: 'OK', limit_remaining: 2, current_limit: { requests_per_unit: 3, unit: 'MINUTE' } }],
      response_headers_to_add: [],
    });
    expect(await hitsMetric('edge.remote_address', 'total_negative_hits')).toBe(2);
    expect(await hitsMetric('edge.remote_address', 'total_hits')).toBe(4);
    expect((await ask('edge', ip('10.9.0.1'))).statuses[0].limit_remaining).toBe(1);
    expect((await ask('edge', ip('10.9.0.1'))).statuses[0].limit_remaining).toBe(0);
    expect((await ask('edge', ip('10.9.0.1'))).overall_code).toBe('OVER_LIMIT');
  });

  it('floored at none: a key with nothing to take back, or a limit of 0, answers OK and takes nothing', async () => {
    const r = (await answered(limits.answer(refund('10.9.0.2', 5)))).response;
    expect(r.statuses[0]).toMatchObject({ code: 'OK', limit_remaining: 3 });
    expect((await ask('edge', ip('10.9.0.2'), 3)).statuses[0].limit_remaining).toBe(0);
    const zero = (await answered(limits.answer(refund('50.0.0.5', 1)))).response;
    expect(zero).toMatchObject({ overall_code: 'OK', statuses: [{ code: 'OK', limit_remaining: 0 }] });
    expect(await hitsMetric('edge.remote_address_50.0.0.5', 'total_negative_hits')).toBe(1);
    expect((await ask('edge', ip('50.0.0.5'))).overall_code).toBe('OVER_LIMIT');
  });

  it('two sidecars on one store: a refund of pushed admits frees the slots fleet-wide from the next sync round', async () => {
    const store = new MemoryStore();
    const a = make(CONFIG, { id: 'a', gateways: 2 }, store);
    const b = make(CONFIG, { id: 'b', gateways: 2 }, store);
    await a.start();
    await b.start();
    try {
      const on = async (s: EnvoyLimits) => (await answered(s.answer(req('edge', ip('10.9.0.3'))))).response;
      // b holds the key too (a gateway decides a key's first request on its own view)
      expect((await on(b)).overall_code).toBe('OK');
      for (let i = 0; i < 2; i++) expect((await on(a)).overall_code).toBe('OK');
      await vi.advanceTimersByTimeAsync(2000);
      expect((await on(b)).overall_code).toBe('OVER_LIMIT');
      // pushed and counted by the store: taken back there at a's next round, seen by b at its next sync
      expect((await answered(a.answer(refund('10.9.0.3', 2)))).response.overall_code).toBe('OK');
      await vi.advanceTimersByTimeAsync(2000);
      expect((await on(b)).overall_code).toBe('OK');
      expect((await on(b)).overall_code).toBe('OK');
      expect((await on(b)).overall_code).toBe('OVER_LIMIT');
    } finally {
      await a.stop();
      await b.stop();
    }
  });
});

describe('descriptors[].limit: the request’s own limit, as the service takes it', () => {
  const over = (entries: Entry[], requests_per_unit: number, unit: string | number) => ({
    domain: 'edge',
    hits_addend: 0,
    descriptors: [
      { entries: entries.map(([key, value]) => ({ key, value })), limit: { requests_per_unit, unit } },
    ],
  });
  const send = async (r: RlsRequest) => (await answered(limits.answer(r))).response;

  it('for a known domain it wins over the files: its rate and unit, counted per descriptor, no shadow mode', async () => {
    const a = await send(
      over(
        [
          ['service', 's'],
          ['user', 'user-a'],
        ],
        2,
        'MINUTE',
      ),
    );
    expect(a.statuses[0]).toMatchObject({
      code: 'OK',
      current_limit: { name: '', requests_per_unit: 2, unit: 'MINUTE' },
      limit_remaining: 1,
    });
    await send(
      over(
        [
          ['service', 's'],
          ['user', 'user-a'],
        ],
        2,
        'MINUTE',
      ),
    );
    // user-a's file limit is in shadow mode; the override is not
    expect(
      (
        await send(
          over(
            [
              ['service', 's'],
              ['user', 'user-a'],
            ],
            2,
            'MINUTE',
          ),
        )
      ).overall_code,
    ).toBe('OVER_LIMIT');
    // another descriptor under the same override: its own count; an entry no file limit matches: limited too
    expect((await send(over([['anything', 'x']], 2, 'MINUTE'))).statuses[0].limit_remaining).toBe(1);
    expect(await hitsMetric('edge.limit_override_2_per_minute', 'total_hits')).toBe(4);
    // the file's own limit of user-a untouched
    expect(
      (
        await ask('edge', [
          [
            ['service', 's'],
            ['user', 'user-a'],
          ],
        ])
      ).statuses[0].limit_remaining,
    ).toBe(0);
  });

  it('an unknown domain is not limited, override or not; 0 refuses; a bad unit or too many overrides is INVALID_ARGUMENT', async () => {
    expect((await send({ ...over([['a', 'b']], 5, 'MINUTE'), domain: 'other' })).statuses[0]).toEqual({
      code: 'OK',
    });
    expect((await send(over([['a', 'b']], 0, 'HOUR'))).overall_code).toBe('OVER_LIMIT');
    expect(limits.answer(over([['a', 'b']], 5, 'UNKNOWN'))).toEqual({
      ok: false,
      problem: 'descriptors[0].limit.unit must be SECOND, MINUTE, HOUR, DAY or WEEK, got "UNKNOWN"',
    });
    expect(limits.answer(over([['a', 'b']], 5, 'YEAR')).ok).toBe(false);
    for (let n = 1; n <= 16; n++) expect(limits.answer(over([['a', 'b']], n, 'HOUR')).ok).toBe(true);
    expect(limits.answer(over([['a', 'b']], 17, 'HOUR'))).toEqual({
      ok: false,
      problem:
        'descriptors[0].limit: more than 16 distinct limit overrides (domain, unit and rate) per sidecar',
    });
    expect(limits.answer(over([['a', 'b']], 3, 'HOUR')).ok).toBe(true);
  });
});

describe('docs/envoy.md’s example (docs/examples/envoy-ratelimit)', () => {
  it('loads with its JSON file’s options and answers as the page says', async () => {
    const root = join(import.meta.dirname, '../../docs/examples/envoy-ratelimit');
    const json = loadConfig(JSON.parse(readFileSync(join(root, 'sidecar.json'), 'utf8')));
    await limits.stop();
    limits = make(readEnvoyConfig(join(root, 'edge.yaml')), policyCommon(json.gateway as never));
    await limits.start();
    expect(limits.allGateways).toHaveLength(4);
    const r = await ask('edge', [
      [['remote_address', '10.0.0.1']],
      [['api_key', 'partner-acme']],
      [['api_key', 'k']],
    ]);
    expect(r.statuses.map((s) => s.current_limit?.requests_per_unit)).toEqual([1000, 1000, 100]);
    for (let i = 0; i < 20; i++) await ask('edge', [[['path', '/search']]]);
    const shadow = await ask('edge', [[['path', '/search']]]);
    expect(shadow.statuses[0]).toMatchObject({ code: 'OK', limit_remaining: 0 });
  });
});

describe('reload without losing counts', () => {
  const edge = (minute: number) =>
    parseEnvoyConfig([
      {
        name: 'edge.yaml',
        text: `domain: edge\ndescriptors:\n  - key: remote_address\n    rate_limit: { unit: minute, requests_per_unit: ${minute} }\n  - key: tenant\n    rate_limit: { unit: hour, requests_per_unit: 5 }\n`,
      },
    ]);

  it('an unchanged limit keeps its gateway object and counts; a changed one starts afresh; a removed one stops', async () => {
    limits = make(edge(3));
    await limits.start();
    const ip = limits.gatewayOf('edge.remote_address');
    const tenant = limits.gatewayOf('edge.tenant');
    await ask('edge', [[['remote_address', '10.0.0.1']], [['tenant', 't']]], 2);
    expect(await limits.apply(edge(3))).toEqual({ kept: 2, added: 0, removed: 0 });
    expect(limits.gatewayOf('edge.remote_address')).toBe(ip);
    expect((await ask('edge', [[['remote_address', '10.0.0.1']]])).statuses[0].limit_remaining).toBe(0);
    // the per-address limit raised to 10: a new gateway (it counts afresh); the tenant's kept with its count
    expect(await limits.apply(edge(10))).toEqual({ kept: 1, added: 1, removed: 1 });
    expect(limits.gatewayOf('edge.tenant')).toBe(tenant);
    expect(limits.gatewayOf('edge.remote_address')).not.toBe(ip);
    expect(ip?.running).toBe(false);
    const r = await ask('edge', [[['remote_address', '10.0.0.1']], [['tenant', 't']]]);
    expect(r.statuses.map((s) => [s.current_limit?.requests_per_unit, s.limit_remaining])).toEqual([
      [10, 9],
      [5, 2],
    ]);
  });

  it('a reload the gateways refuse leaves the limits in force; a bad file is reported line by line', async () => {
    limits = make(edge(3), { syncMs: 2000 });
    await limits.start();
    const perSecond = parseEnvoyConfig([
      {
        name: 'fast.yaml',
        text: 'domain: fast\ndescriptors:\n  - key: k\n    rate_limit: { unit: second, requests_per_unit: 5 }\n',
      },
    ]);
    await expect(limits.apply(perSecond)).rejects.toThrow(
      /^fast\.yaml:4: descriptors\[0\]\.rate_limit: 5 per second cannot be a gateway with the JSON file's options: /,
    );
    expect(limits.config.files).toEqual(['edge.yaml']);
    const log: string[] = [];
    const bad = join(import.meta.dirname, 'envoy-configs/bad/unknown-unit.yaml');
    expect(await reloadEnvoyConfig(bad, limits, (l) => log.push(l))).toBeNull();
    expect(log[0]).toMatch(
      /unknown-unit\.yaml:5: descriptors\[0\]\.rate_limit\.unit: "fortnight" is not a unit/,
    );
    expect(log[1]).toMatch(/^not reloaded: .* the limits in force are unchanged$/);
    // the good directory has per-second limits: with Δ = 2 s none of it is taken
    expect(await reloadEnvoyConfig(GOOD, limits, (l) => log.push(l))).toBeNull();
    expect(log.join('\n')).toMatch(
      /edge\.yaml:\d+: descriptors\[6\]\.descriptors\[0\]\.rate_limit: 5 per second cannot be/,
    );
    expect(limits.config.files).toEqual(['edge.yaml']);
  });

  it('a good reload is logged with what carried over', async () => {
    limits = make(edge(3));
    await limits.start();
    const log: string[] = [];
    // edge.remote_address is 3 per minute in both: kept; edge.tenant changes (5 per hour to 2 per week)
    expect(await reloadEnvoyConfig(GOOD, limits, (l) => log.push(l))).toEqual({
      kept: 1,
      added: 9,
      removed: 1,
    });
    expect(log).toEqual([
      expect.stringMatching(/^reloaded .*good: 1 limits kept their counts, 9 new, 1 removed$/),
    ]);
  });

  it('a reload never rejects: one after stop is logged and refused', async () => {
    await limits.stop();
    const log: string[] = [];
    expect(await reloadEnvoyConfig(GOOD, limits, (l) => log.push(l))).toBeNull();
    expect(log).toEqual(['not reloaded: fleetlimit sidecar: stopped; the limits in force are unchanged']);
    const gone = join(import.meta.dirname, 'envoy-configs/no-such-dir');
    expect(await reloadEnvoyConfig(gone, limits, (l) => log.push(l))).toBeNull();
    expect(log[1]).toMatch(/no-such-dir:0: \(path\): ENOENT/);
  });

  it('a watcher’s error is passed on, not thrown', () => {
    let fail = (_e: Error) => {};
    const errors: string[] = [];
    const w = watchEnvoyConfig(
      GOOD,
      () => {},
      200,
      (_dir, _l, onError) => {
        fail = onError;
        return { close: () => {} };
      },
      (e) => errors.push(e.message),
    );
    fail(new Error('EMFILE'));
    expect(errors).toEqual(['EMFILE']);
    w.close();
  });

  it('a change on disk: one reload once the burst of events settles (fake timers)', () => {
    let fire = () => {};
    let closed = false;
    let calls = 0;
    const w = watchEnvoyConfig(
      GOOD,
      () => calls++,
      200,
      (_dir, l) => {
        fire = l;
        return { close: () => (closed = true) };
      },
    );
    fire();
    vi.advanceTimersByTime(150);
    fire();
    vi.advanceTimersByTime(150);
    expect(calls).toBe(0);
    vi.advanceTimersByTime(50);
    expect(calls).toBe(1);
    w.close();
    expect(closed).toBe(true);
  });

  it('the policy name (the store’s name for the counts) is the limit’s path, unit and rate', () => {
    const [a, b] = [edge(3), edge(10)].map((c) => c.limits[0]);
    expect(limitPolicyName(a)).toMatch(/^rl-[0-9a-f]{16}$/);
    expect(limitPolicyName(a)).not.toBe(limitPolicyName(b));
    expect(limitPolicyName(a)).toBe(limitPolicyName(edge(3).limits[0]));
  });

  it('EnvoyConfigError lists every issue', () => {
    expect(new EnvoyConfigError([{ file: 'f', line: 2, field: 'x', message: 'm' }]).message).toBe(
      'f:2: x: m',
    );
  });
});
