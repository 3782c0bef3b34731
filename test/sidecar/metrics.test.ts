// The sidecar's request counter counts in plain numbers and hands prom-client the totals when the
// registry is read (issue 35): the series must be what inc() per request gave, at every scrape.
import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { SidecarMetrics } from '../../src/sidecar/metrics.js';

const series = async (r: Registry) =>
  (await r.metrics())
    .split('\n')
    .filter((l) => l.startsWith('fleetlimit_sidecar_requests_total{'))
    .sort();

describe('SidecarMetrics', () => {
  it('shows all eight series at 0 before any request', async () => {
    const r = new Registry();
    new SidecarMetrics(r);
    const s = await series(r);
    expect(s).toHaveLength(8);
    for (const l of s) expect(l).toMatch(/ 0$/);
  });

  it('shows the counts at every scrape, and keeps counting between them', async () => {
    const r = new Registry();
    const m = new SidecarMetrics(r);
    m.count('grpc', 'allowed');
    m.count('grpc', 'allowed');
    m.count('http', 'invalid');
    const first = await series(r);
    expect(first).toContain('fleetlimit_sidecar_requests_total{protocol="grpc",outcome="allowed"} 2');
    expect(first).toContain('fleetlimit_sidecar_requests_total{protocol="http",outcome="invalid"} 1');
    expect(first).toContain('fleetlimit_sidecar_requests_total{protocol="grpc",outcome="limited"} 0');
    expect(await series(r)).toEqual(first);
    m.count('grpc', 'allowed');
    expect(await series(r)).toContain(
      'fleetlimit_sidecar_requests_total{protocol="grpc",outcome="allowed"} 3',
    );
    const json = await r.getMetricsAsJSON();
    const counter = json.find((x) => x.name === 'fleetlimit_sidecar_requests_total');
    expect(counter?.type).toBe('counter');
  });
});
