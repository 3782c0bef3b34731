import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import calculateSlot from 'cluster-key-slot';
import fc from 'fast-check';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { validateConfig } from '../../src/cli/validate-command.js';
import { ConfigError, KeyError } from '../../src/config.js';
import { type AsyncGatewayOptions, createAsyncGateway } from '../../src/gateway/runtime/index.js';
import { createRequestDecider, withRateLimit } from '../../src/http/index.js';
import { RedisStore } from '../../src/store/redis/index.js';
import { keyNames } from '../../src/store/redis/key-names.js';
import { TestAsyncStore } from '../support/async-memory-store.js';
import { gatewayClient, ready, storeCount } from '../support/fault-fleet.js';
import { seeded } from '../support/fc-seed.js';
import { type RedisServer, startRedisServer } from '../support/redis-server.js';

/** Issue 6, item 9: bad configuration, hostile keys, bad costs, forged X-Forwarded-For. */

const good: AsyncGatewayOptions = {
  id: 'gw-1',
  design: 'shared-counter',
  limit: 100,
  windowMs: 60_000,
  gateways: 4,
  syncMs: 1000,
  store: new TestAsyncStore(),
};

function fieldOf(f: () => unknown): string {
  try {
    f();
  } catch (e) {
    if (e instanceof ConfigError) {
      expect(e.message.startsWith(`${e.field}:`)).toBe(true);
      return e.field;
    }
    throw e;
  }
  return '(accepted)';
}

// optional fields treat null as unset (their default); required ones reject it
const NUMS_POS_INT = [0, -1, 1.5, Number.NaN, Number.POSITIVE_INFINITY, '10', 2 ** 60];
const NUMS_POS = [0, -1, Number.NaN, Number.POSITIVE_INFINITY, -Number.POSITIVE_INFINITY, '10'];

const GATEWAY_CASES: [string, unknown[]][] = [
  ['id', ['', 5, null, {}]],
  ['design', ['central', '', 3, null]],
  ['limit', [...NUMS_POS_INT, null]],
  ['windowMs', [...NUMS_POS, null]],
  ['windowKind', ['tumbling', '', 1]],
  ['gateways', [...NUMS_POS_INT, null]],
  ['syncMs', [...NUMS_POS, 60_001, null]],
  ['leaseTtlMs', NUMS_POS],
  ['horizonMs', NUMS_POS],
  ['reads', ['on_request', 'every', '', 1, true]],
  ['failMode', ['fail-open', '', 0]],
  ['storeTimeoutMs', NUMS_POS],
  ['staleAfterMs', [...NUMS_POS, 60_001]],
  ['maxKeys', NUMS_POS_INT],
  ['clock', [5, 'now', {}]],
  ['random', [5, 'x']],
  ['store', [null, {}, { sync: () => {} }, 'redis']],
];

const REDIS_CASES: [string, unknown[]][] = [
  ['prefix', ['{x}', 'a}', 5, 'x'.repeat(65)]],
  ['clock', ['local', 1]],
  ['mode', ['fast', '']],
  ['buckets', NUMS_POS_INT],
  ['chunkKeys', NUMS_POS_INT],
  ['chunkAdmits', NUMS_POS_INT],
  ['keyGroups', [...NUMS_POS_INT, 1025, '256', 'auto']],
  ['expiryMarginMs', NUMS_POS],
];

const HTTP_CASES: [string, unknown[]][] = [
  ['trustedProxies', ['10.0.0.0/8', ['10.0.0.0/33'], ['example.com'], [5]]],
  ['policyName', ['naïve', 'a\nb', 5]],
  ['legacyHeaders', ['yes', 1]],
  ['key', ['ip', 5]],
  ['cost', [2, 'x']],
  ['skip', [true]],
  ['clock', [0]],
  ['onInvalidKey', ['drop', 5, true]],
  ['onInvalidCost', ['ignore', 1]],
];

describe('faults: bad configuration is rejected naming the field', () => {
  it('every AsyncGatewayOptions field', () => {
    let n = 0;
    for (const [field, bads] of GATEWAY_CASES) {
      for (const bad of bads) {
        expect(
          fieldOf(() => createAsyncGateway({ ...good, [field]: bad } as AsyncGatewayOptions)),
          `${field}=${String(bad)}`,
        ).toBe(field);
        n++;
      }
    }
    console.log(`${n} bad gateway option values, each rejected naming its field`);
  });

  it('every RedisStoreOptions field and every middleware option', () => {
    const gw = createAsyncGateway(good);
    let n = 0;
    for (const [field, bads] of REDIS_CASES) {
      for (const bad of bads) {
        expect(
          fieldOf(() => new RedisStore({} as Redis, { [field]: bad })),
          `${field}=${String(bad)}`,
        ).toBe(field);
        n++;
      }
    }
    for (const [field, bads] of HTTP_CASES) {
      for (const bad of bads) {
        expect(
          fieldOf(() => createRequestDecider(gw, { [field]: bad })),
          `${field}=${String(bad)}`,
        ).toBe(field);
        n++;
      }
    }
    console.log(`${n} bad Redis store and middleware option values, each rejected naming its field`);
  });

  it('fleetlimit validate CONFIG.json exits non-zero naming the field; a good file passes', () => {
    const dir = mkdtempSync(join(tmpdir(), 'fleetlimit-validate-'));
    try {
      const base = {
        id: 'gw-1',
        design: 'leases',
        limit: 100,
        windowMs: 60_000,
        gateways: 4,
        syncMs: 1000,
        failMode: 'local',
        maxKeys: 100_000,
        redis: { prefix: 'fl:', mode: 'exact' },
        http: { trustedProxies: ['private'], policyName: 'default', legacyHeaders: false },
      };
      expect(validateConfig(base)).toMatchObject({ design: 'leases', limit: 100 });
      // in-process, every case: the error names the field (nested ones with their section)
      const fileCases: [string, Record<string, unknown>][] = [
        ['limt', { limt: 5 }],
        ['redis.prefix', { redis: { prefix: '{a}' } }],
        ['redis.colour', { redis: { colour: 'red' } }],
        ['http.trustedProxies', { http: { trustedProxies: ['nope'] } }],
        ['http.legacyHeaders', { http: { legacyHeaders: 'yes' } }],
        ['http.onInvalidKey', { http: { onInvalidKey: 'drop' } }],
        ['http.ipv6Subnet', { http: { ipv6Subnet: 128 } }],
        ['store', { store: 'redis://x' }],
      ];
      for (const [field, bads] of GATEWAY_CASES) {
        if (field === 'clock' || field === 'random' || field === 'store') continue;
        for (const bad of bads)
          if (bad === null || typeof bad !== 'number' || Number.isFinite(bad))
            fileCases.push([field, { [field]: bad }]);
      }
      for (const [field, patch] of fileCases) {
        const f = fieldOf(() => validateConfig({ ...base, ...patch }));
        expect(f, JSON.stringify(patch)).toBe(field === 'store' ? 'store' : field);
      }
      // the real command, as a process: exit code and message
      const run = (cfg: unknown) => {
        const file = join(dir, 'c.json');
        writeFileSync(file, JSON.stringify(cfg));
        return spawnSync(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', 'validate', file], {
          encoding: 'utf8',
          timeout: 30_000,
        });
      };
      const ok = run(base);
      const bad = run({ ...base, syncMs: 120_000 });
      const notJson = spawnSync(
        process.execPath,
        ['--import', 'tsx', 'src/cli/main.ts', 'validate', 'package-lock.json.nope'],
        {
          encoding: 'utf8',
        },
      );
      console.log(
        `fleetlimit validate: good file → exit ${ok.status} (${ok.stdout.trim()}); syncMs 120000 → exit ${bad.status}: ${bad.stderr.trim()}; ${fileCases.length} bad files checked in-process`,
      );
      expect(ok.status).toBe(0);
      expect(bad.status).not.toBe(0);
      expect(bad.stderr).toContain('syncMs');
      expect(notJson.status).not.toBe(0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);

  it('a request cost of 0, negative, fractional, NaN, infinite or not a number is rejected', async () => {
    const gw = createAsyncGateway(good);
    for (const cost of [0, -1, 0.5, 1.5, Number.NaN, Number.POSITIVE_INFINITY, '1', null]) {
      expect(
        fieldOf(() => gw.admitNow('k', cost as number)),
        String(cost),
      ).toBe('cost');
      await expect(gw.admit('k', cost as number)).rejects.toBeInstanceOf(ConfigError);
    }
    expect(gw.stats().decisions.allowed).toBe(0);
  });
});

describe('faults: hostile keys', () => {
  let server: RedisServer;
  let client: Redis;
  beforeAll(async () => {
    server = await startRedisServer();
    client = await ready(gatewayClient(server.url));
  });
  afterAll(async () => {
    client?.disconnect();
    await server?.stop();
  });

  it('empty and over-long keys (1 MB) are rejected; the rest are stored apart from each other on a real Redis', async () => {
    const gw = createAsyncGateway({
      ...good,
      gateways: 1,
      store: new RedisStore(client, { prefix: 'hostile:' }),
    });
    expect(() => gw.admitNow('')).toThrow(KeyError);
    expect(() => gw.admitNow('x'.repeat(1 << 20))).toThrow(KeyError);
    expect(() => gw.admitNow(5 as unknown as string)).toThrow(KeyError);
    const hostile = [
      '*',
      '?',
      '[a-z]',
      'user:*',
      '{',
      '}',
      '{}',
      '{user}',
      'a{b}c',
      '}{',
      'a\r\nb',
      '\r\n',
      '\n',
      'a\0b',
      '\0',
      '\uD800',
      '\uDC00',
      '\uD800\uD800',
      '\uFFFD',
      '😀',
      '\uD83D',
      'x'.repeat(1024),
      `${'é'.repeat(200)}`,
      `${'é'.repeat(200)}\uD800`,
      'k',
      'k ',
      ' k',
      'K',
    ];
    // the first sync brings Redis's clock: decisions before it would wait for it
    expect(await gw.syncNow()).toBe(true);
    hostile.forEach((key, i) => {
      for (let n = 0; n <= i; n++) expect(gw.admitNow(key)).toMatchObject({ allowed: true });
    });
    expect(await gw.syncNow()).toBe(true);
    const policy = gw.options.policy;
    const counts = await Promise.all(hostile.map((k) => storeCount(client, 'hostile', k, policy)));
    console.log(
      `${hostile.length} hostile keys (glob, braces, CR/LF, NUL, lone surrogates, 1,024 chars): counts ${counts.join(',')}`,
    );
    expect(counts).toEqual(hostile.map((_, i) => i + 1));
    await gw.stop();
  });

  it('property: Redis key naming is injective, never confuses log and meta, and our hash tag picks the slot', () => {
    const unit = fc.oneof(
      fc.constantFrom(
        '{',
        '}',
        '*',
        '?',
        '[',
        ']',
        ':',
        '#',
        '\r',
        '\n',
        '\0',
        '\uD800',
        '\uDC00',
        '\uDBFF',
        'é',
        '😀',
      ),
      fc.string({ maxLength: 3, unit: 'binary' }),
    );
    const key = fc.oneof(
      fc.array(unit, { minLength: 1, maxLength: 30 }).map((a) => a.join('')),
      fc.string({ minLength: 1, maxLength: 300, unit: 'binary' }),
      fc.string({ minLength: 190, maxLength: 260 }),
    );
    let pairs = 0;
    fc.assert(
      fc.property(
        fc.uniqueArray(
          key.filter((k) => k.length > 0),
          { minLength: 2, maxLength: 40 },
        ),
        fc.constantFrom('fl:', '', 'a:b'),
        (keys, prefix) => {
          const names = keys.map((k) =>
            keyNames(prefix, k, 'l', { limit: 10, windowMs: 1000, windowKind: 'sliding' }),
          );
          const all = new Set<string>();
          for (const n of names) {
            all.add(n.log);
            all.add(n.meta);
            // the first {...} in the name is ours: the slot is the tag's
            expect(calculateSlot(n.log)).toBe(calculateSlot(`{${n.tag}}`));
            expect(calculateSlot(n.meta)).toBe(calculateSlot(n.log));
            expect(n.log.length).toBeLessThan(prefix.length + 300);
          }
          pairs += keys.length;
          expect(all.size).toBe(2 * keys.length);
        },
      ),
      seeded({ numRuns: 300 }),
    );
    console.log(`key naming: ${pairs} generated keys in 300 runs, no two share a Redis name`);
  });
});

describe('faults: X-Forwarded-For and IPv4-mapped addresses through a real server', () => {
  let srv: Server;
  const seen: string[] = [];
  async function serve(trustedProxies: string[], host: string): Promise<number> {
    const gw = createAsyncGateway({ ...good, design: 'split' });
    const handler = withRateLimit(gw, (_req, res) => res.end('ok'), {
      trustedProxies,
      key: (_req, addr) => {
        seen.push(addr);
        return addr;
      },
    });
    srv = createServer(handler);
    await new Promise<void>((r) => srv.listen(0, host, () => r()));
    return (srv.address() as AddressInfo).port;
  }
  const get = (port: number, headers: Record<string, string> = {}) =>
    fetch(`http://127.0.0.1:${port}/`, { headers }).then((r) => r.text());
  afterAll(() => srv?.close());

  it('ignores X-Forwarded-For unless the peer is a configured trusted proxy', async () => {
    let port = await serve([], '127.0.0.1');
    await get(port, { 'x-forwarded-for': '203.0.113.7' });
    srv.close();
    port = await serve(['10.0.0.0/8'], '127.0.0.1');
    await get(port, { 'x-forwarded-for': '203.0.113.7' });
    srv.close();
    port = await serve(['loopback'], '127.0.0.1');
    await get(port, { 'x-forwarded-for': '198.51.100.1, 203.0.113.7' });
    srv.close();
    console.log(
      `client keys: untrusted peer → ${seen[0]}, peer not in trustedProxies → ${seen[1]}, trusted loopback proxy → ${seen[2]}`,
    );
    expect(seen.slice(0, 3)).toEqual(['127.0.0.1', '127.0.0.1', '203.0.113.7']);
  });

  it('keys an IPv4 client seen through a dual-stack socket (::ffff:a.b.c.d) as IPv4', async () => {
    seen.length = 0;
    const port = await serve([], '::');
    await get(port);
    srv.close();
    console.log(`dual-stack peer keyed as ${seen[0]}`);
    expect(seen[0]).toBe('127.0.0.1');
  });
});
