// envoyproxy/ratelimit's YAML configuration (issue 36): the files under test/sidecar/envoy-configs
// loaded as that service loads them, and each kind of bad file refused with its file, line and field.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { EnvoyConfigError, parseEnvoyConfig, readEnvoyConfig } from '../../src/sidecar/envoy-yaml.js';
import { runFleetlimit } from '../support/run-cli.js';

const DIR = join(import.meta.dirname, 'envoy-configs');

function issuesOf(path: string) {
  try {
    readEnvoyConfig(path);
  } catch (e) {
    if (!(e instanceof EnvoyConfigError)) throw e;
    return e.issues.map((i) => ({ ...i, file: i.file.slice(DIR.length + 1) }));
  }
  throw new Error(`${path} loaded`);
}

describe('envoyproxy/ratelimit files: loading', () => {
  it('a directory: one domain per file, every rate_limit block with its unit, window and options', () => {
    const c = readEnvoyConfig(join(DIR, 'good'));
    expect([...c.domains.keys()]).toEqual(['edge', 'messaging']);
    expect(c.files.map((f) => f.slice(DIR.length + 1))).toEqual(['good/edge.yaml', 'good/messaging.yaml']);
    const byKey = new Map(c.limits.map((l) => [l.fullKey, l]));
    expect([...byKey.keys()]).toEqual([
      'edge.remote_address',
      'edge.remote_address_50.0.0.5',
      'edge.path_/api/*',
      'edge.path_/api/health',
      'edge.plan_free.api_key',
      'edge.service.user_user-a',
      'edge.service.user_user-b',
      'edge.key_1_value_1.user_bkthomps',
      'edge.key_2_value_2.user_bkthomps',
      'edge.tenant',
      'messaging.message_type_marketing.to_number',
      'messaging.to_number',
    ]);
    expect(byKey.get('edge.remote_address')).toMatchObject({
      unit: 'MINUTE',
      windowMs: 60_000,
      requestsPerUnit: 3,
      line: 7,
      field: 'descriptors[0].rate_limit',
    });
    expect(byKey.get('edge.remote_address_50.0.0.5')).toMatchObject({ unit: 'SECOND', requestsPerUnit: 0 });
    expect(byKey.get('edge.path_/api/health')).toMatchObject({ unlimited: true, unit: '' });
    expect(byKey.get('edge.service.user_user-a')?.shadowMode).toBe(true);
    expect(byKey.get('edge.service.user_user-b')?.shadowMode).toBe(false);
    expect(byKey.get('edge.key_1_value_1.user_bkthomps')?.name).toBe('specific_limit');
    expect(byKey.get('edge.key_2_value_2.user_bkthomps')?.replaces).toEqual(['specific_limit']);
    expect(byKey.get('edge.tenant')).toMatchObject({
      detailedMetric: true,
      unit: 'WEEK',
      windowMs: 604_800_000,
    });
    expect(byKey.get('messaging.to_number')).toMatchObject({ unit: 'DAY', requestsPerUnit: 100 });
  });

  it('a single file; units in any case; scalars read as the service’s YAML 1.1 decoder reads them', () => {
    const c = parseEnvoyConfig([
      {
        name: 'one.yaml',
        text: 'domain: d\ndescriptors:\n  - key: port\n    value: 8080\n    shadow_mode: yes\n    rate_limit: { unit: SECOND, requests_per_unit: 1 }\n',
      },
    ]);
    expect(c.limits[0]).toMatchObject({ fullKey: 'd.port_8080', unit: 'SECOND', shadowMode: true });
  });

  it('two files of one domain are refused, naming both', () => {
    const t = 'domain: d\ndescriptors: []\n';
    expect(() =>
      parseEnvoyConfig([
        { name: 'a.yaml', text: t },
        { name: 'b.yaml', text: t },
      ]),
    ).toThrow('b.yaml:1: domain: "d" is also the domain of a.yaml: one file per domain');
  });
});

describe('envoyproxy/ratelimit files: a bad one is named with its file, line and field', () => {
  it('an unknown unit', () => {
    expect(issuesOf(join(DIR, 'bad/unknown-unit.yaml'))).toEqual([
      {
        file: 'bad/unknown-unit.yaml',
        line: 5,
        field: 'descriptors[0].rate_limit.unit',
        message: '"fortnight" is not a unit: one of second, minute, hour, day, week',
      },
    ]);
  });

  it('a duplicate key at one level (the same key and value twice)', () => {
    const [i] = issuesOf(join(DIR, 'bad/duplicate-key.yaml'));
    expect(i).toMatchObject({ file: 'bad/duplicate-key.yaml', line: 9, field: 'descriptors[2].key' });
    expect(i.message).toMatch(/^duplicates the descriptor at line 3 \(key "remote_address", no value\)/);
  });

  it('a misspelled field, with the field it likely means', () => {
    const issues = issuesOf(join(DIR, 'bad/misspelled-field.yaml'));
    // one problem: the field it likely means is not reported missing as well
    expect(issues).toHaveLength(1);
    const [i] = issues;
    expect(i).toMatchObject({ line: 6, field: 'descriptors[0].rate_limit.request_per_unit' });
    expect(i.message).toMatch(/^is not a field of a rate_limit \(did you mean "requests_per_unit"\?\)/);
  });

  it('a limit that replaces itself', () => {
    expect(issuesOf(join(DIR, 'bad/replaces-itself.yaml'))).toEqual([
      {
        file: 'bad/replaces-itself.yaml',
        line: 9,
        field: 'descriptors[0].rate_limit.replaces[0].name',
        message: 'is this limit\'s own name ("per_user"): a limit cannot replace itself',
      },
    ]);
  });

  it('unlimited with a unit (refused by the service too)', () => {
    expect(issuesOf(join(DIR, 'bad/unlimited-with-unit.yaml'))[0]).toMatchObject({
      line: 6,
      field: 'descriptors[0].rate_limit.unit',
    });
  });

  it('a month: longer than a fleetlimit window can be', () => {
    const [i] = issuesOf(join(DIR, 'bad/month.yaml'));
    expect(i).toMatchObject({ line: 5, field: 'descriptors[0].rate_limit.unit' });
    expect(i.message).toMatch(/month \(30 days.*use week or shorter/);
  });

  it('a map key given twice (the YAML parser’s error, with its line)', () => {
    expect(issuesOf(join(DIR, 'bad/repeated-map-key.yaml'))[0]).toMatchObject({
      line: 4,
      field: '(yaml)',
      message: 'Map keys must be unique',
    });
  });

  it('no domain', () => {
    expect(issuesOf(join(DIR, 'bad/no-domain.yaml'))[0]).toMatchObject({
      line: 1,
      field: 'domain',
      message: 'is required and must not be empty',
    });
  });

  it('every problem of every file at once, one line each (the directory of bad files)', () => {
    const issues = issuesOf(join(DIR, 'bad'));
    expect(new Set(issues.map((i) => i.file)).size).toBe(8);
    expect(String(new EnvoyConfigError(issues).message.split('\n')[0])).toMatch(
      /^bad\/duplicate-key\.yaml:9: /,
    );
  });

  it('a bad type, a missing requests_per_unit and an empty key, each named', () => {
    let e: EnvoyConfigError | undefined;
    try {
      parseEnvoyConfig([
        {
          name: 'x.yaml',
          text: 'domain: d\ndescriptors:\n  - key: ""\n  - key: a\n    shadow_mode: maybe\n    rate_limit:\n      unit: second\n',
        },
      ]);
    } catch (x) {
      e = x as EnvoyConfigError;
    }
    expect(e?.issues.map((i) => `${i.line} ${i.field}`)).toEqual([
      '3 descriptors[0].key',
      '5 descriptors[1].shadow_mode',
      '6 descriptors[1].rate_limit.requests_per_unit',
    ]);
  });
});

describe('fleetlimit validate --envoy-config', () => {
  const json = (extra: Record<string, unknown>) => {
    const dir = mkdtempSync(join(tmpdir(), 'fl-validate-envoy-'));
    const file = join(dir, 'sidecar.json');
    writeFileSync(
      file,
      JSON.stringify({
        id: 'e',
        design: 'shared-counter',
        limit: 10,
        windowMs: 60_000,
        gateways: 2,
        syncMs: 500,
        ...extra,
      }),
    );
    return { dir, file };
  };

  it('good files beside a good configuration: valid, with the count of limits', async () => {
    const { dir, file } = json({});
    try {
      const r = await runFleetlimit(['validate', file, '--envoy-config', join(DIR, 'good')]);
      expect(r.code).toBeUndefined();
      expect(r.out).toMatch(/: valid \(shared-counter, .*; .*good: valid, 12 limits in 2 file\(s\)\n$/);
    } finally {
      rmSync(dir, { recursive: true });
    }
  });

  it('a limit the gateway options cannot hold, and domain in sidecar.grpc: each named, exit 2', async () => {
    const { dir, file } = json({ syncMs: 2000, sidecar: { grpc: { domain: 'edge', descriptors: [['a']] } } });
    try {
      const r = await runFleetlimit(['validate', file, '--envoy-config', join(DIR, 'good')]);
      expect(r.code).toBe(2);
      const lines = r.err.trim().split('\n');
      expect(lines[1]).toBe(
        'fleetlimit: sidecar.grpc.domain: and descriptors come from the --envoy-config files: leave them out (host and port stay)',
      );
      expect(lines[2]).toMatch(
        /edge\.yaml:\d+: descriptors\[6\]\.descriptors\[0\]\.rate_limit: 5 per second cannot be a gateway with the JSON file's options: /,
      );
    } finally {
      rmSync(dir, { recursive: true });
    }
  });
});
