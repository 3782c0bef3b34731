// The sidecar answering from envoyproxy/ratelimit files (issue 36) through its gRPC front end, driven
// by a grpc-js client built from the same vendored proto, on a real redis-server: the good files of
// test/sidecar/envoy-configs answered as that service answers them, and a reload that keeps counts.
// The matching rules one by one, on the in-memory store: envoy-limits.test.ts.
import { mkdirSync, mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as grpc from '@grpc/grpc-js';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config-file.js';
import { stopByPid } from '../../src/fleet/children.js';
import { watchEnvoyConfig } from '../../src/sidecar/envoy-watch.js';
import { parseEnvoyConfig, readEnvoyConfig } from '../../src/sidecar/envoy-yaml.js';
import { loadRateLimitService } from '../../src/sidecar/grpc-server.js';
import { type Sidecar, startSidecar } from '../../src/sidecar/sidecar.js';
import { RedisStore } from '../../src/store/redis/index.js';
import { startSidecarProcess } from '../support/proxy-fleet.js';
import { type RedisServer, startRedisServer } from '../support/redis-server.js';
import { runFleetlimit } from '../support/run-cli.js';

const DIR = join(import.meta.dirname, 'envoy-configs');
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

// the JSON file gives the design, K, Δ and the store; sidecar.grpc only where to listen
const JSON_CONFIG = {
  id: 'edge-1',
  design: 'shared-counter',
  limit: 100,
  windowMs: 60_000,
  gateways: 1,
  syncMs: 200,
  storeTimeoutMs: 100,
  sidecar: { http: { port: 0 }, grpc: { port: 0 } },
};

let redis: RedisServer;
let r: Redis;
let sc: Sidecar;
let c: grpc.Client;

function ask(
  domain: string,
  descriptors: (Entry[] | { entries: Entry[]; hits: number })[],
  hits = 0,
): Promise<Answer> {
  const req = {
    domain,
    hits_addend: hits,
    descriptors: descriptors.map((d) => ({
      entries: (Array.isArray(d) ? d : d.entries).map(([key, value]) => ({ key, value })),
      ...(Array.isArray(d) ? {} : { hits_addend: { value: String(d.hits) } }),
    })),
  };
  return new Promise((resolve, reject) =>
    (
      c as unknown as {
        ShouldRateLimit: (r: unknown, cb: (e: grpc.ServiceError | null, a: Answer) => void) => void;
      }
    ).ShouldRateLimit(req, (err, a) => (err === null ? resolve(a) : reject(err))),
  );
}

beforeAll(async () => {
  redis = await startRedisServer();
  r = new Redis(redis.url, { enableOfflineQueue: false, maxRetriesPerRequest: 0 });
  r.on('error', () => {});
  await new Promise((res) => r.once('ready', res));
  sc = await startSidecar(loadConfig({ ...JSON_CONFIG, redis: { prefix: `yaml-${Date.now()}:` } }), {
    store: new RedisStore(r),
    envoyConfig: readEnvoyConfig(join(DIR, 'good')),
  });
  c = new Rls(sc.grpcAddress as string, grpc.credentials.createInsecure());
});
afterAll(async () => {
  c?.close();
  await sc?.stop();
  r?.disconnect();
  await redis?.stop();
});

describe('fleetlimit sidecar --envoy-config: answers over gRPC on Redis', () => {
  it('per descriptor: its status, current_limit (the WEEK unit too), remaining and reset; OVER_LIMIT if any is', async () => {
    const a = await ask('edge', [
      [['remote_address', '10.1.0.1']],
      [['remote_address', '50.0.0.5']],
      [['path', '/api/health']],
      [['tenant', 'acme']],
      [['nothing', 'here']],
    ]);
    expect(a.overall_code).toBe('OVER_LIMIT');
    expect(a.statuses.map((s) => s.code)).toEqual(['OK', 'OVER_LIMIT', 'OK', 'OK', 'OK']);
    expect(a.statuses[0]).toMatchObject({
      current_limit: { name: '', requests_per_unit: 3, unit: 'MINUTE' },
      limit_remaining: 2,
    });
    expect(Number(a.statuses[0].duration_until_reset?.seconds)).toBeGreaterThan(50);
    expect(a.statuses[1].current_limit).toMatchObject({ requests_per_unit: 0, unit: 'SECOND' });
    expect(a.statuses[2]).toMatchObject({ current_limit: null, limit_remaining: 4_294_967_295 });
    expect(a.statuses[3].current_limit).toEqual({ name: '', requests_per_unit: 2, unit: 'WEEK' });
    expect(a.statuses[4]).toMatchObject({ current_limit: null, limit_remaining: 0 });
  });

  it('hits_addend per descriptor and per request; a second domain; shadow mode never OVER_LIMIT', async () => {
    const m = (n: string): Entry[] => [
      ['message_type', 'marketing'],
      ['to_number', n],
    ];
    const a = await ask(
      'messaging',
      [{ entries: m('2061111111'), hits: 4 }, [['to_number', '2061111111']]],
      2,
    );
    expect(a.statuses.map((s) => s.limit_remaining)).toEqual([1, 98]);
    expect((await ask('messaging', [m('2061111111')], 2)).overall_code).toBe('OVER_LIMIT');
    const shadow: Entry[] = [
      ['service', 's'],
      ['user', 'user-a'],
    ];
    await ask('edge', [shadow]);
    const s = await ask('edge', [shadow]);
    expect(s.overall_code).toBe('OK');
    expect(s.statuses[0]).toMatchObject({ code: 'OK', limit_remaining: 0 });
    const text = await sc.registry.metrics();
    expect(text).toContain(
      'fleetlimit_sidecar_envoy_hits_total{limit="edge.service.user_user-a",stat="shadow_mode"} 1',
    );
  });

  it('a descriptor’s limit override decoded and answered (its rate and unit)', async () => {
    const req = {
      domain: 'edge',
      hits_addend: 0,
      descriptors: [
        { entries: [{ key: 'route', value: '/r' }], limit: { requests_per_unit: 7, unit: 'HOUR' } },
      ],
    };
    const a = await new Promise<Answer>((resolve, reject) =>
      (
        c as unknown as {
          ShouldRateLimit: (r: unknown, cb: (e: grpc.ServiceError | null, a: Answer) => void) => void;
        }
      ).ShouldRateLimit(req, (err, x) => (err === null ? resolve(x) : reject(err))),
    );
    expect(a.statuses[0]).toMatchObject({
      code: 'OK',
      current_limit: { requests_per_unit: 7, unit: 'HOUR' },
      limit_remaining: 6,
    });
  });

  it('a reload keeps the counts of unchanged limits (same gateway), and the new limits answer', async () => {
    const ip: Entry[] = [['remote_address', '10.1.0.9']];
    await ask('edge', [ip], 2);
    const before = sc.envoy?.gatewayOf('edge.remote_address');
    const next = parseEnvoyConfig([
      {
        name: 'edge.yaml',
        text: 'domain: edge\ndescriptors:\n  - key: remote_address\n    rate_limit: { unit: minute, requests_per_unit: 3 }\n  - key: user\n    rate_limit: { unit: minute, requests_per_unit: 1 }\n',
      },
    ]);
    expect(await sc.envoy?.apply(next)).toEqual({ kept: 1, added: 1, removed: 9 });
    expect(sc.envoy?.gatewayOf('edge.remote_address')).toBe(before);
    const a = await ask('edge', [ip, [['user', 'u']], [['tenant', 'acme']]]);
    expect(a.statuses.map((s) => [s.code, s.limit_remaining])).toEqual([
      ['OK', 0],
      ['OK', 0],
      ['OK', 0],
    ]);
    expect(a.statuses[2].current_limit).toBeNull();
    expect((await ask('messaging', [[['to_number', '1']]])).statuses[0].current_limit).toBeNull();
  });
});

describe('fleetlimit sidecar --envoy-config: watching the files', () => {
  it('a file rewritten in place and one replaced by a rename are each seen (real fs.watch, bounded)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'fl-envoy-watch-'));
    const file = join(dir, 'edge.yaml');
    writeFileSync(file, 'domain: edge\ndescriptors: []\n');
    let seen = 0;
    let wake = () => {};
    const w = watchEnvoyConfig(
      file,
      () => {
        seen++;
        wake();
      },
      50,
    );
    const next = () =>
      new Promise<void>((resolve, reject) => {
        const t = setTimeout(() => reject(new Error('no change seen in 5 s')), 5000);
        wake = () => {
          clearTimeout(t);
          resolve();
        };
      });
    try {
      let change = next();
      writeFileSync(file, 'domain: edge\ndescriptors:\n  - key: a\n');
      await change;
      change = next();
      writeFileSync(join(dir, '.edge.yaml.tmp'), 'domain: edge\n');
      renameSync(join(dir, '.edge.yaml.tmp'), file);
      await change;
      expect(seen).toBeGreaterThanOrEqual(2);
    } finally {
      w.close();
      rmSync(dir, { recursive: true });
    }
  });
});

describe('fleetlimit sidecar --envoy-config: the CLI', () => {
  it('a bad file: each problem with its file, line and field, exit 2, before any connection', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'fl-envoy-yaml-'));
    const json = join(dir, 'sidecar.json');
    writeFileSync(json, JSON.stringify(JSON_CONFIG));
    try {
      const res = await runFleetlimit([
        'sidecar',
        json,
        '--redis',
        'redis://127.0.0.1:1',
        '--envoy-config',
        join(DIR, 'bad/misspelled-field.yaml'),
      ]);
      expect(res.code).toBe(2);
      expect(res.err).toMatch(
        /^fleetlimit: .*bad\/misspelled-field\.yaml:6: descriptors\[0\]\.rate_limit\.request_per_unit: is not a field of a rate_limit \(did you mean "requests_per_unit"\?\)/,
      );
    } finally {
      rmSync(dir, { recursive: true });
    }
  });
});

describe('fleetlimit sidecar --envoy-config: the process', () => {
  it('starts from the files, reloads on a change and on SIGHUP, stops on SIGTERM (bounded)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'fl-envoy-proc-'));
    const json = join(dir, 'sidecar.json');
    const yamlDir = join(dir, 'config');
    const yaml = join(yamlDir, 'edge.yaml');
    const write = (rpu: number) =>
      writeFileSync(
        yaml,
        `domain: edge\ndescriptors:\n  - key: k\n    rate_limit: { unit: minute, requests_per_unit: ${rpu} }\n`,
      );
    writeFileSync(json, JSON.stringify({ ...JSON_CONFIG, redis: { prefix: `proc-${Date.now()}:` } }));
    mkdirSync(yamlDir);
    write(4);
    const p = startSidecarProcess(
      json,
      ['--redis', redis.url],
      ['--grpc-port', '0', '--envoy-config', yamlDir],
    );
    const until = async (re: RegExp) => {
      const deadline = Date.now() + 10_000;
      while (!re.test(p.stderr())) {
        if (Date.now() > deadline) throw new Error(`not seen in 10 s: ${re}; stderr: ${p.stderr()}`);
        await new Promise((r) => setTimeout(r, 25));
      }
    };
    let pc: grpc.Client | undefined;
    try {
      const { grpc: address } = await p.ready;
      pc = new Rls(address as string, grpc.credentials.createInsecure());
      const one = () =>
        new Promise<Answer>((resolve, reject) =>
          (
            pc as unknown as {
              ShouldRateLimit: (r: unknown, cb: (e: grpc.ServiceError | null, a: Answer) => void) => void;
            }
          ).ShouldRateLimit(
            { domain: 'edge', hits_addend: 0, descriptors: [{ entries: [{ key: 'k', value: 'v' }] }] },
            (err, a) => (err === null ? resolve(a) : reject(err)),
          ),
        );
      expect((await one()).statuses[0]).toMatchObject({
        current_limit: { requests_per_unit: 4 },
        limit_remaining: 3,
      });
      write(6);
      await until(/reloaded .*config: 0 limits kept their counts, 1 new, 1 removed/);
      expect((await one()).statuses[0]).toMatchObject({
        current_limit: { requests_per_unit: 6 },
        limit_remaining: 5,
      });
      process.kill(p.child.pid as number, 'SIGHUP');
      await until(/reloaded .*config: 1 limits kept their counts, 0 new, 0 removed/);
      expect((await one()).statuses[0].limit_remaining).toBe(4);
    } finally {
      pc?.close();
      if (p.child.pid !== undefined) await stopByPid(p.child.pid, p.child, 5000);
      rmSync(dir, { recursive: true });
    }
    expect(p.stderr()).toMatch(/SIGTERM: last sync, then exit/);
  });
});
