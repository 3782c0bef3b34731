// `fleetlimit sidecar --redis-cluster`: the CLI on a real three-master Redis Cluster, answering Envoy's
// gRPC and NGINX's HTTP side, its admits reaching the cluster, and SIGTERM's last sync.

import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as grpc from '@grpc/grpc-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadRateLimitService } from '../../src/sidecar/grpc-server.js';
import { ROOT } from '../docs/doc-blocks.js';
import { startSidecarProcess } from '../support/proxy-fleet.js';
import { type RedisClusterHandle, startRedisCluster } from '../support/redis-cluster.js';

let cluster: RedisClusterHandle;
beforeAll(async () => {
  cluster = await startRedisCluster(3);
});
afterAll(async () => {
  await cluster?.stop();
});

describe('fleetlimit sidecar on a Redis Cluster', () => {
  it('decides over gRPC and HTTP, syncs with the cluster, and makes its last sync on SIGTERM', async () => {
    const doc = JSON.parse(readFileSync(join(ROOT, 'docs/examples/sidecar-envoy.json'), 'utf8'));
    const dir = mkdtempSync(join(tmpdir(), 'fl-sidecar-cluster-'));
    const file = join(dir, 'sidecar.json');
    writeFileSync(
      file,
      JSON.stringify({
        ...doc,
        design: 'shared-counter',
        limit: 2,
        gateways: 1,
        syncMs: 100,
        sidecar: { ...doc.sidecar, http: { port: 0 }, grpc: { ...doc.sidecar.grpc, port: 0 } },
      }),
    );
    const nodes = cluster.startup.map((n) => `${n.host}:${n.port}`).join(',');
    const sc = startSidecarProcess(file, ['--redis-cluster', nodes], ['--grpc-port', '0']);
    const { http, grpc: address } = await sc.ready;
    const Rls = loadRateLimitService();
    const c = new Rls(address as string, grpc.credentials.createInsecure()) as unknown as {
      ShouldRateLimit: (r: unknown, cb: (e: Error | null, a: { overall_code: string }) => void) => void;
      close: () => void;
    };
    const ask = () =>
      new Promise<string>((res, rej) =>
        c.ShouldRateLimit(
          { domain: 'edge', descriptors: [{ entries: [{ key: 'api_key', value: 'k' }] }] },
          (e, a) => (e === null ? res(a.overall_code) : rej(e)),
        ),
      );
    expect([await ask(), await ask(), await ask()]).toEqual(['OK', 'OK', 'OVER_LIMIT']);
    expect((await fetch(`${http}/decide`, { headers: { 'x-api-key': 'h' } })).status).toBe(204);
    c.close();
    const m = await (await fetch(`${http}/metrics`)).text();
    expect(m).toMatch(/fleetlimit_syncs_total\{[^}]*\} [1-9]/);
    const code = new Promise((res) => sc.child.once('exit', (x) => res(x)));
    sc.child.kill('SIGTERM');
    expect(await code).toBe(0);
    expect(sc.stderr()).toContain('stopped (last sync answered)');
  });
});
