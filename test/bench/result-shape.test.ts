// The shape of `npm run bench -- --quick --json`, on made-up figures: no benchmark runs here.
import { describe, expect, it } from 'vitest';
import type { DecisionBench } from '../../bench/decision.js';
import type { DecisionSample } from '../../bench/decision-worker.js';
import type { HttpBench } from '../../bench/http.js';
import {
  ALL_DESIGNS,
  missingKeys,
  REQUIRED_HTTP_SERVERS,
  renderMarkdown,
  shapeResult,
} from '../../bench/report.js';
import type { SyncBench } from '../../bench/sync.js';

function sample(subject: string, nsPerOp: number): DecisionSample {
  return {
    subject,
    keys: 10_000,
    regime: 'allowed',
    nsPerOp,
    baselineNsPerOp: 10,
    ratioToBaseline: nsPerOp / 10,
    cpuNsPerOp: nsPerOp,
    baselineCpuNsPerOp: 10,
    cpuRatioToBaseline: nsPerOp / 10,
    allowedPct: 100,
    reps: 3,
    n: 1000,
  };
}

function parts() {
  const samples = [...ALL_DESIGNS.map((d) => sample(d, 15)), sample('rlf-memory', 300)];
  const nsPerOp = Object.fromEntries(samples.map((s) => [s.subject, s.nsPerOp]));
  nsPerOp['map-baseline'] = 10;
  const decision: DecisionBench = { reps: 3, n: 1000, samples, nsPerOp, cpuNsPerOp: nsPerOp };
  const servers = [...REQUIRED_HTTP_SERVERS, 'express-bare', 'express-shared-counter'];
  const byServer = (v: number) => Object.fromEntries(servers.map((s) => [s, v]));
  const http: HttpBench = {
    connections: 1,
    durationS: 1,
    rounds: 1,
    pinned: true,
    reqPerSec: { ...byServer(1000), 'shared-counter': 990, 'rlf-redis': 500, 'express-rate-limit': 300 },
    p99Ms: byServer(1),
    ratioToBare: { ...byServer(1), 'shared-counter': 0.99 },
    serverCpuUs: { ...byServer(10), 'shared-counter': 10.4 },
    capacityToBare: { ...byServer(1), 'shared-counter': 0.96 },
    sharedCounterOver: {
      'central-log': 2,
      'rlf-redis': 1.98,
      'express-rate-limit': 3.3,
      'express-rate-limit (Express vs Express)': 1.6,
    },
    redisCpuUs: { ...byServer(0), 'rlf-redis': 12, 'express-rate-limit': 12 },
    sharedCounterCapacityOver: {
      'central-log': 2,
      'rlf-redis': 2.1,
      'express-rate-limit': 3.3,
      'express-rate-limit (Express vs Express)': 1.6,
    },
    non2xx: byServer(0),
    errors: byServer(0),
    runs: {},
    load1: [1],
  };
  const sync: SyncBench = {
    chunkKeys: 100,
    redisVersion: '7',
    results: [],
    redisBenchmark: {},
    keysPerSecond: { 'exact/1000': 1, 'exact/10000': 1, 'buckets/1000': 1, 'buckets/10000': 1 },
    redisCpuUsPerKey: {},
    gatewayCpuUsPerKey: {},
  };
  const sim = { requestsPerSecond: Object.fromEntries(ALL_DESIGNS.map((d) => [d, 1e7])) };
  const machine = { cpu: 'x', cores: 2, memoryGiB: 1, node: 'v20', date: 'now', loadStart: [1, 1, 1] };
  return { machine, quick: true, command: 'npm run bench -- --quick --json', decision, sync, http, sim };
}

describe('bench result shape', () => {
  it('carries every key the quick JSON promises, and the targets', () => {
    const r = shapeResult(parts());
    expect(missingKeys(JSON.parse(JSON.stringify(r)))).toEqual([]);
    expect(r.targets.every((t) => t.pass)).toBe(true);
    expect(renderMarkdown(r, '')).toContain('| shared-counter |');
    // the server's capacity (CPU per request) is a target of its own, next to requests/s
    expect(r.targets.map((t) => t.name)).toContain(
      'HTTP shared-counter server capacity ≥ 95 % of bare node:http (CPU per request)',
    );
    expect(renderMarkdown(r, '')).toContain('server CPU µs/req');
  });

  it('reports allow() next to admit(), each with its own target', () => {
    const p = parts();
    p.decision.samples.push({ ...sample('shared-counter', 12), call: 'allow' });
    const r = shapeResult(p);
    expect(r.targets.map((t) => t.name)).toContain(
      'decision shared-counter allow(), 10,000 keys, allowed: ≤ 2× Map and < RateLimiterMemory',
    );
    expect(renderMarkdown(r, '')).toContain('| shared-counter, `allow()` |');
  });

  it('names what is missing', () => {
    const p = parts();
    delete p.http.reqPerSec['rlf-redis'];
    p.decision.nsPerOp.leases = Number.NaN;
    expect(missingKeys(shapeResult(p))).toEqual(['decision.nsPerOp.leases', 'http.reqPerSec.rlf-redis']);
  });
});
