// The sidecar reads a quiet key on request unless its file says otherwise (decision 0016): the
// top-level policy, the named ones and the envoyproxy/ratelimit limits alike. The library's own
// default (every sync) is unchanged.
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config-file.js';
import type { AsyncGateway } from '../../src/gateway/runtime/async-gateway.js';
import { createAsyncGateway } from '../../src/gateway/runtime/async-gateway.js';
import { readEnvoyConfig } from '../../src/sidecar/envoy-yaml.js';
import { type Sidecar, startSidecar } from '../../src/sidecar/sidecar.js';
import { MemoryStore } from '../../src/store/memory-store.js';

const BASE = {
  id: 'sc-reads',
  design: 'adaptive',
  limit: 10,
  windowMs: 60_000,
  gateways: 4,
  syncMs: 1_000,
  sidecar: {
    policies: { 'per-ip': { limit: 4, windowMs: 10_000 } },
    http: { port: 0 },
  },
};
const ENVOY = readEnvoyConfig(join(import.meta.dirname, 'envoy-configs', 'good'));

const readsOnRequest = (g: AsyncGateway) => g.options.fleet.readsOnRequest;

describe('the sidecar’s default reads', () => {
  let sc: Sidecar | null = null;
  afterEach(async () => {
    await sc?.stop();
    sc = null;
  });

  it('a file without "reads": every policy’s gateway reads on request; the library’s default does not', async () => {
    sc = await startSidecar(loadConfig(BASE), { store: new MemoryStore() });
    expect([...sc.gateways.keys()]).toHaveLength(2);
    for (const g of sc.gateways.values()) expect(readsOnRequest(g)).toBe(true);
    const { sidecar: _s, ...gateway } = BASE;
    const lib = createAsyncGateway({ ...gateway, store: new MemoryStore() } as never);
    expect(readsOnRequest(lib)).toBe(false);
  });

  it('with --envoy-config, the limits’ gateways read on request too', async () => {
    sc = await startSidecar(loadConfig({ ...BASE, sidecar: { http: { port: 0 }, grpc: { port: 0 } } }), {
      store: new MemoryStore(),
      envoyConfig: ENVOY,
    });
    const all = sc.envoy?.allGateways ?? [];
    expect(all.length).toBeGreaterThan(0);
    for (const g of all) expect(readsOnRequest(g)).toBe(true);
  });

  it('a file that sets "reads": "every-sync" keeps it, for every policy', async () => {
    sc = await startSidecar(loadConfig({ ...BASE, reads: 'every-sync' }), { store: new MemoryStore() });
    for (const g of sc.gateways.values()) expect(readsOnRequest(g)).toBe(false);
  });
});
