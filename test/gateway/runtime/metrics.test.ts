import { EventEmitter } from 'node:events';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import type { AsyncGateway, RuntimeStats } from '../../../src/gateway/runtime/async-gateway.js';
import {
  metricsHandler,
  registerGatewayMetrics,
  unregisterGatewayMetrics,
} from '../../../src/gateway/runtime/metrics.js';

/**
 * The Prometheus series (issue 32: Stryker found metrics.ts reached by no unit test). A gateway here
 * is what the metrics read of one: an id, `stats()` and the 'sync' event; each field of its stats has
 * a value of its own, so a series reading the wrong field, or under the wrong label, shows.
 */
class FakeGateway extends EventEmitter {
  constructor(
    readonly id: string,
    public s: Partial<RuntimeStats> = {},
  ) {
    super();
  }
  stats(): RuntimeStats {
    return { ...STATS, ...this.s } as RuntimeStats;
  }
}

const STATS = {
  syncs: 11,
  syncTimeouts: 12,
  syncRefusals: 13,
  syncErrors: 14,
  storeCallFailuresBy: { timeout: 21, refused: 22, error: 23 },
  lastGoodAgeMs: 2500,
  unsyncedAdmits: 31,
  keys: 32,
  gateways: 33,
  storeDown: true,
  offsetMs: -750,
  duplicateId: true,
  duplicateIdSyncs: 41,
  earlySyncs: 42,
  earlySyncsCapped: 43,
  decisions: { allowed: 51, limited: 52, degradedAllowed: 53, degradedLimited: 54 },
} as Partial<RuntimeStats>;

const gw = (g: FakeGateway) => g as unknown as AsyncGateway;

interface Value {
  value: number;
  labels: Record<string, string | number>;
  metricName?: string;
}

async function scrape(r: Registry) {
  const json = await r.getMetricsAsJSON();
  return json.map((m) => ({ name: m.name, type: String(m.type), values: m.values as Value[] }));
}

async function series(r: Registry, name: string) {
  const m = (await scrape(r)).find((x) => x.name === name);
  if (m === undefined) throw new Error(`no metric ${name}`);
  return m;
}

/** The series' values of one gateway as `label values joined by ','` → value (no extra label: ''). */
async function valuesOf(r: Registry, name: string, gateway: string) {
  const m = await series(r, name);
  const out: Record<string, number> = {};
  for (const v of m.values) {
    if (v.labels.gateway !== gateway) continue;
    const rest = Object.entries(v.labels)
      .filter(([k]) => k !== 'gateway')
      .map(([k, x]) => `${k}=${x}`)
      .join(',');
    out[rest] = v.value;
  }
  return out;
}

/** The latency histogram's `_sum` or `_count` of one gateway. */
async function latency(r: Registry, gateway: string, part: 'sum' | 'count') {
  const h = await series(r, 'fleetlimit_sync_duration_seconds');
  return h.values.find((v) => v.labels.gateway === gateway && v.metricName?.endsWith(`_${part}`))?.value;
}

describe('registerGatewayMetrics', () => {
  it('lists every series in order, counters and gauges, with the default prefix', async () => {
    const r = registerGatewayMetrics(gw(new FakeGateway('a')), new Registry());
    const all = await scrape(r);
    expect(all.map((m) => [m.name, m.type])).toEqual([
      ['fleetlimit_syncs_total', 'counter'],
      ['fleetlimit_sync_failures_total', 'counter'],
      ['fleetlimit_store_call_failures_total', 'counter'],
      ['fleetlimit_sync_duration_seconds', 'histogram'],
      ['fleetlimit_last_good_sync_age_seconds', 'gauge'],
      ['fleetlimit_unsynced_admits', 'gauge'],
      ['fleetlimit_keys', 'gauge'],
      ['fleetlimit_gateways_live', 'gauge'],
      ['fleetlimit_store_down', 'gauge'],
      ['fleetlimit_store_offset_seconds', 'gauge'],
      ['fleetlimit_duplicate_id', 'gauge'],
      ['fleetlimit_duplicate_id_syncs_total', 'counter'],
      ['fleetlimit_early_syncs_total', 'counter'],
      ['fleetlimit_decisions_total', 'counter'],
    ]);
  });

  it('reads each series from its own field of stats(), under its own labels', async () => {
    const r = registerGatewayMetrics(gw(new FakeGateway('a')), new Registry());
    const v = (name: string) => valuesOf(r, `fleetlimit_${name}`, 'a');
    expect(await v('syncs_total')).toEqual({ '': 11 });
    expect(await v('sync_failures_total')).toEqual({
      'reason=timeout': 12,
      'reason=refused': 13,
      'reason=error': 14,
    });
    expect(await v('store_call_failures_total')).toEqual({
      'reason=timeout': 21,
      'reason=refused': 22,
      'reason=error': 23,
    });
    expect(await v('last_good_sync_age_seconds')).toEqual({ '': 2.5 });
    expect(await v('unsynced_admits')).toEqual({ '': 31 });
    expect(await v('keys')).toEqual({ '': 32 });
    expect(await v('gateways_live')).toEqual({ '': 33 });
    expect(await v('store_down')).toEqual({ '': 1 });
    expect(await v('store_offset_seconds')).toEqual({ '': -0.75 });
    expect(await v('duplicate_id')).toEqual({ '': 1 });
    expect(await v('duplicate_id_syncs_total')).toEqual({ '': 41 });
    expect(await v('early_syncs_total')).toEqual({ 'result=sent': 42, 'result=capped': 43 });
    expect(await v('decisions_total')).toEqual({
      'outcome=allowed,degraded=false': 51,
      'outcome=limited,degraded=false': 52,
      'outcome=allowed,degraded=true': 53,
      'outcome=limited,degraded=true': 54,
    });
  });

  it('reads the flags as 0 when false, and the values as they are at each scrape (counters not summed)', async () => {
    const g = new FakeGateway('a');
    const r = registerGatewayMetrics(gw(g), new Registry());
    expect(await valuesOf(r, 'fleetlimit_syncs_total', 'a')).toEqual({ '': 11 });
    expect(await valuesOf(r, 'fleetlimit_syncs_total', 'a')).toEqual({ '': 11 });
    g.s = { storeDown: false, duplicateId: false, syncs: 12, keys: 5 };
    expect(await valuesOf(r, 'fleetlimit_store_down', 'a')).toEqual({ '': 0 });
    expect(await valuesOf(r, 'fleetlimit_duplicate_id', 'a')).toEqual({ '': 0 });
    expect(await valuesOf(r, 'fleetlimit_syncs_total', 'a')).toEqual({ '': 12 });
    expect(await valuesOf(r, 'fleetlimit_keys', 'a')).toEqual({ '': 5 });
    expect(await valuesOf(r, 'fleetlimit_keys', 'a')).toEqual({ '': 5 });
  });

  it('labels each gateway of a shared registry by its id; the first prefix stays', async () => {
    const r = new Registry();
    expect(registerGatewayMetrics(gw(new FakeGateway('a')), r, { prefix: 'x_' })).toBe(r);
    expect(registerGatewayMetrics(gw(new FakeGateway('b', { keys: 7 })), r, { prefix: 'y_' })).toBe(r);
    expect((await scrape(r)).every((m) => m.name.startsWith('x_'))).toBe(true);
    expect(await valuesOf(r, 'x_keys', 'a')).toEqual({ '': 32 });
    expect(await valuesOf(r, 'x_keys', 'b')).toEqual({ '': 7 });
    expect((await series(r, 'x_keys')).values).toHaveLength(2);
    expect((await series(r, 'x_decisions_total')).values).toHaveLength(8);
  });

  it('makes a registry of its own when given none', async () => {
    const a = registerGatewayMetrics(gw(new FakeGateway('a')));
    const b = registerGatewayMetrics(gw(new FakeGateway('b')));
    expect(a).toBeInstanceOf(Registry);
    expect(a).not.toBe(b);
    expect(await valuesOf(a, 'fleetlimit_keys', 'a')).toEqual({ '': 32 });
    expect(await valuesOf(a, 'fleetlimit_keys', 'b')).toEqual({});
  });

  it("feeds the latency histogram from the 'sync' event, in seconds, once however often registered", async () => {
    const g = new FakeGateway('a');
    const r = new Registry();
    registerGatewayMetrics(gw(g), r);
    expect(registerGatewayMetrics(gw(g), r)).toBe(r);
    expect(g.listenerCount('sync')).toBe(1);
    g.emit('sync', { latencyMs: 4 });
    g.emit('sync', { latencyMs: 300 });
    const h = await series(r, 'fleetlimit_sync_duration_seconds');
    const by = (metricName: string, le?: number) =>
      h.values.find(
        (v) =>
          v.metricName === metricName && v.labels.gateway === 'a' && (le === undefined || v.labels.le === le),
      )?.value;
    expect(by('fleetlimit_sync_duration_seconds_count')).toBe(2);
    expect(by('fleetlimit_sync_duration_seconds_sum')).toBeCloseTo(0.304, 9);
    expect(by('fleetlimit_sync_duration_seconds_bucket', 0.001)).toBe(0);
    expect(by('fleetlimit_sync_duration_seconds_bucket', 0.005)).toBe(1);
    expect(by('fleetlimit_sync_duration_seconds_bucket', 0.25)).toBe(1);
    expect(by('fleetlimit_sync_duration_seconds_bucket', 0.5)).toBe(2);
    // registered twice, the gateway is still listed once
    expect((await series(r, 'fleetlimit_keys')).values).toHaveLength(1);
  });
});

describe('unregisterGatewayMetrics', () => {
  it("takes the gateway's series and its 'sync' listener off, and leaves the others", async () => {
    const a = new FakeGateway('a');
    const b = new FakeGateway('b');
    const r = new Registry();
    registerGatewayMetrics(gw(a), r);
    registerGatewayMetrics(gw(b), r);
    a.emit('sync', { latencyMs: 10 });
    b.emit('sync', { latencyMs: 10 });
    unregisterGatewayMetrics(gw(a), r);
    expect(a.listenerCount('sync')).toBe(0);
    expect(b.listenerCount('sync')).toBe(1);
    for (const m of await scrape(r)) expect(m.values.every((v) => v.labels.gateway === 'b')).toBe(true);
    expect(await valuesOf(r, 'fleetlimit_keys', 'b')).toEqual({ '': 32 });
    expect(await latency(r, 'b', 'sum')).toBe(0.01);
    // registered again: counted again, its latency from scratch
    registerGatewayMetrics(gw(a), r);
    expect(a.listenerCount('sync')).toBe(1);
    a.emit('sync', { latencyMs: 20 });
    expect(await valuesOf(r, 'fleetlimit_keys', 'a')).toEqual({ '': 32 });
    expect(await latency(r, 'a', 'sum')).toBeCloseTo(0.02, 9);
    expect(await latency(r, 'a', 'count')).toBe(1);
  });

  it("keeps the latency series of a successor under the same id (a changed limit's gateway)", async () => {
    const old = new FakeGateway('a');
    const next = new FakeGateway('a', { keys: 9 });
    const r = new Registry();
    registerGatewayMetrics(gw(old), r);
    registerGatewayMetrics(gw(next), r);
    old.emit('sync', { latencyMs: 10 });
    next.emit('sync', { latencyMs: 20 });
    unregisterGatewayMetrics(gw(old), r);
    expect(old.listenerCount('sync')).toBe(0);
    expect(await valuesOf(r, 'fleetlimit_keys', 'a')).toEqual({ '': 9 });
    expect(await latency(r, 'a', 'count')).toBe(2);
    // the successor unregistered too: the id's latency series leaves
    unregisterGatewayMetrics(gw(next), r);
    expect((await series(r, 'fleetlimit_sync_duration_seconds')).values).toEqual([]);
    expect((await series(r, 'fleetlimit_keys')).values).toEqual([]);
  });

  it('does nothing for a registry without metrics or a gateway not on it', async () => {
    const a = new FakeGateway('a');
    const b = new FakeGateway('b');
    const r = new Registry();
    unregisterGatewayMetrics(gw(a), r);
    registerGatewayMetrics(gw(a), r);
    const other = new FakeGateway('a');
    unregisterGatewayMetrics(gw(b), r);
    unregisterGatewayMetrics(gw(other), r);
    other.on('sync', () => {});
    expect(a.listenerCount('sync')).toBe(1);
    a.emit('sync', { latencyMs: 10 });
    expect(await valuesOf(r, 'fleetlimit_keys', 'a')).toEqual({ '': 32 });
    expect(await latency(r, 'a', 'sum')).toBe(0.01);
    expect(await latency(r, 'a', 'count')).toBe(1);
  });
});

describe('metricsHandler', () => {
  function response() {
    const headers: Record<string, string> = {};
    let done: (body: string) => void = () => {};
    const ended = new Promise<string>((resolve) => {
      done = resolve;
    });
    const res = {
      statusCode: 0,
      setHeader: (k: string, v: string) => {
        headers[k] = v;
      },
      end: (body: string) => done(body),
    };
    return { res, headers, ended };
  }

  it('serves the registry in the text format, with its content type', async () => {
    const r = registerGatewayMetrics(gw(new FakeGateway('a')), new Registry());
    const { res, headers, ended } = response();
    metricsHandler(r)({} as IncomingMessage, res as unknown as ServerResponse);
    const body = await ended;
    expect(res.statusCode).toBe(200);
    expect(headers).toEqual({ 'Content-Type': r.contentType });
    expect(body).toBe(await r.metrics());
    expect(body).toContain('fleetlimit_keys{gateway="a"} 32');
  });

  it("answers 500 with the error's message when the registry fails, or a plain one", async () => {
    for (const [thrown, message] of [
      [new Error('collect broke'), 'collect broke'],
      ['not an error', 'metrics failed'],
    ] as const) {
      const r = new Registry();
      r.metrics = () => Promise.reject(thrown);
      const { res, headers, ended } = response();
      metricsHandler(r)({} as IncomingMessage, res as unknown as ServerResponse);
      expect(await ended).toBe(message);
      expect(res.statusCode).toBe(500);
      expect(headers).toEqual({});
    }
  });
});
