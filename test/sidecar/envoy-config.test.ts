// docs/examples/envoy.json (the Envoy configuration docs/envoy.md shows) fits the sidecar
// configuration beside it (docs/examples/sidecar-envoy.json, which test/sidecar/grpc.live.test.ts
// runs): the rate limit filter's domain is the sidecar's, its cluster is the sidecar's gRPC port over
// HTTP/2, and every descriptor the route's actions can produce matches one of the sidecar's rules.
// Envoy itself is not on this machine (no Debian package): this is the check that stands for running it.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config-file.js';
import { resolveSidecarOptions } from '../../src/sidecar/options.js';
import { ROOT } from '../docs/doc-blocks.js';

// biome-ignore lint/suspicious/noExplicitAny: a JSON document walked by its known paths
type J = any;
const envoy: J = JSON.parse(readFileSync(join(ROOT, 'docs/examples/envoy.json'), 'utf8'));
const sidecarFile: J = JSON.parse(readFileSync(join(ROOT, 'docs/examples/sidecar-envoy.json'), 'utf8'));

/** The descriptor entry key an Envoy rate limit action produces. */
function entryKey(action: J): string {
  if (action.request_headers !== undefined) return action.request_headers.descriptor_key;
  if (action.remote_address !== undefined) return 'remote_address';
  if (action.generic_key !== undefined) return action.generic_key.descriptor_key ?? 'generic_key';
  if (action.header_value_match !== undefined)
    return action.header_value_match.descriptor_key ?? 'header_match';
  throw new Error(`an action this check does not know: ${JSON.stringify(action)}`);
}

describe('docs/examples/envoy.json and sidecar-envoy.json', () => {
  const hcm = envoy.static_resources.listeners[0].filter_chains[0].filters[0].typed_config;
  const filter = hcm.http_filters.find((f: J) => f.name === 'envoy.filters.http.ratelimit').typed_config;
  const sidecar = resolveSidecarOptions(sidecarFile.sidecar, {
    gateway: { valid: false, options: sidecarFile },
  });

  it('the sidecar configuration is valid', () => {
    expect(() => loadConfig(sidecarFile)).not.toThrow();
  });

  it('the rate limit filter calls the sidecar: its domain, its gRPC port, HTTP/2, v3, before the router', () => {
    expect(filter.domain).toBe(sidecar.grpc?.domain);
    expect(filter.rate_limit_service.transport_api_version).toBe('V3');
    const name = filter.rate_limit_service.grpc_service.envoy_grpc.cluster_name;
    const cluster = envoy.static_resources.clusters.find((c: J) => c.name === name);
    const addr = cluster.load_assignment.endpoints[0].lb_endpoints[0].endpoint.address.socket_address;
    expect(`${addr.address}:${addr.port_value}`).toBe(`${sidecar.grpc?.host}:${sidecar.grpc?.port}`);
    const proto =
      cluster.typed_extension_protocol_options['envoy.extensions.upstreams.http.v3.HttpProtocolOptions'];
    expect(proto.explicit_http_config.http2_protocol_options).toEqual({});
    expect(hcm.http_filters.at(-1).name).toBe('envoy.filters.http.router');
  });

  it('every descriptor the actions produce is one the sidecar limits', () => {
    const routes = hcm.route_config.virtual_hosts.flatMap((v: J) => v.routes);
    const produced: string[][] = routes.flatMap((r: J) =>
      r.route.rate_limits.map((l: J) => l.actions.map(entryKey)),
    );
    expect(produced.length).toBeGreaterThan(0);
    const rules = sidecar.grpc?.descriptors.map((r) => r.keys);
    for (const keys of produced) expect(rules).toContainEqual(keys);
  });

  it('the API key is held to the top-level policy, the address to the named one', () => {
    expect(sidecar.grpc?.descriptors).toEqual([
      { keys: ['api_key'], policy: sidecarFile.policyName },
      { keys: ['remote_address'], policy: 'per-ip' },
    ]);
    expect(Object.keys(sidecar.policies)).toEqual(['per-ip']);
  });
});
