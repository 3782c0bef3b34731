// A limit removed from the envoyproxy/ratelimit files by a reload stopped its gateway, but the gateway
// stayed registered: /metrics kept serving its series (keys, decisions, store_down…) at their last
// values for the life of the sidecar. Unregistered now, and the gauges are rebuilt at each scrape.
import { Registry } from 'prom-client';
import { afterEach, beforeEach, expect, it, vi } from 'vitest';
import { EnvoyLimits } from '../../src/sidecar/envoy-limits.js';
import { parseEnvoyConfig } from '../../src/sidecar/envoy-yaml.js';
import { MemoryStore } from '../../src/store/memory-store.js';

const file = (tenant: boolean) =>
  parseEnvoyConfig([
    {
      name: 'edge.yaml',
      text: `domain: edge\ndescriptors:\n  - key: remote_address\n    rate_limit: { unit: minute, requests_per_unit: 3 }\n${
        tenant ? '  - key: tenant\n    rate_limit: { unit: hour, requests_per_unit: 5 }\n' : ''
      }`,
    },
  ]);

let limits: EnvoyLimits;
let registry: Registry;
beforeEach(async () => {
  vi.useFakeTimers({ now: 1_800_000_000_000 });
  registry = new Registry();
  limits = new EnvoyLimits(
    {
      common: { id: 'edge-1', design: 'shared-counter', gateways: 1, syncMs: 1000 },
      store: new MemoryStore(),
      maxDescriptors: 8,
      ipv6Subnet: 56,
      registry,
    },
    file(true),
  );
  await limits.start();
});
afterEach(async () => {
  await limits.stop();
  vi.useRealTimers();
});

it('a removed limit leaves /metrics; the kept one stays', async () => {
  const tenant = limits.gatewayOf('edge.tenant');
  const ip = limits.gatewayOf('edge.remote_address');
  if (tenant === undefined || ip === undefined) throw new Error('both limits have gateways');
  const a = limits.answer({
    domain: 'edge',
    hits_addend: 0,
    descriptors: [{ entries: [{ key: 'tenant', value: 't' }] }],
  });
  if (!a.ok) throw new Error(a.problem);
  await a.answered;
  await vi.advanceTimersByTimeAsync(1500);
  const before = await registry.metrics();
  expect(before).toContain(`fleetlimit_keys{gateway="${tenant.id}"}`);
  expect(before).toContain(`fleetlimit_sync_duration_seconds_count{gateway="${tenant.id}"}`);
  expect(await limits.apply(file(false))).toEqual({ kept: 1, added: 0, removed: 1 });
  const after = await registry.metrics();
  expect(after).not.toContain(`gateway="${tenant.id}"`);
  expect(after).toContain(`fleetlimit_keys{gateway="${ip.id}"}`);
  expect(after).toContain(`fleetlimit_decisions_total{gateway="${ip.id}"`);
});
