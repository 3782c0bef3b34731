import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Registry } from 'prom-client';
import { ConfigError } from '../config.js';
import type { LoadedConfig } from '../config-file.js';
import { createPolicyGateways } from '../gateway/policies.js';
import { type AsyncGateway, createAsyncGateway } from '../gateway/runtime/async-gateway.js';
import type { AsyncStore, Store } from '../store/contract.js';
import { Decider } from './decider.js';
import { EnvoyLimits } from './envoy-limits.js';
import type { EnvoyRlsConfig } from './envoy-yaml.js';
import { sidecarGatewayOptions } from './gateway-defaults.js';
import { createSidecarHttpServer } from './http-server.js';
import { SidecarMetrics } from './metrics.js';
import { DEFAULT_GRPC_PORT, policyCommon, resolveSidecarOptions, type SidecarOptions } from './options.js';

export interface SidecarStartOptions {
  /** The gateway's store: a RedisStore on Redis or Redis Cluster (the CLI builds it), or a MemoryStore. */
  store: AsyncStore | Store;
  /** Overrides sidecar.http.port (0: any free port). */
  httpPort?: number;
  /** Overrides sidecar.grpc.port (0: any free port); only when the file has a grpc section. */
  grpcPort?: number;
  /** Local time in ms, for the gateway and the legacy reset header. @default Date.now */
  clock?: () => number;
  /**
   * envoyproxy/ratelimit's configuration (`--envoy-config`, readEnvoyConfig): the gRPC side answers
   * from its limits, each a gateway of its own; `sidecar.grpc` then gives only where to listen
   * (127.0.0.1:8081 without one).
   */
  envoyConfig?: EnvoyRlsConfig;
}

/** A running sidecar: its gateways, where it listens, and a graceful stop. */
export interface Sidecar {
  /** The top-level policy's gateway. */
  readonly gateway: AsyncGateway;
  /** Every policy's gateway by name, the top-level one first (`options.defaultPolicy`). */
  readonly gateways: ReadonlyMap<string, AsyncGateway>;
  readonly options: SidecarOptions;
  readonly registry: Registry;
  /** http://host:port of the HTTP side (auth_request endpoint, health, readiness, metrics). */
  readonly httpUrl: string;
  /** host:port of the gRPC side, or null when the file has no grpc section (and no envoyConfig). */
  readonly grpcAddress: string | null;
  /** With envoyConfig: its limits' gateways, and `apply` to reload them without losing counts. */
  readonly envoy: EnvoyLimits | null;
  /**
   * Stops taking requests (the HTTP server and the gRPC server finish the ones in flight), then stops
   * every policy's gateway with its last sync (pushing every admit not yet synced). Resolves with
   * those syncs' success (true if the store answered them all). Calling it again returns the same promise.
   */
  stop(): Promise<boolean>;
}

/** Listens on host:port and resolves with the bound address (port 0: the one the system chose). */
function listen(server: Server, host: string, port: number): Promise<AddressInfo> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve(server.address() as AddressInfo);
    });
  });
}

function closeServer(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve());
    // NGINX and the load hold keep-alive connections: close the idle ones now, the busy ones after their answer
    server.closeIdleConnections();
  });
}

function hostPort(host: string, port: number): string {
  return host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`;
}

/**
 * Starts the gateways of a loaded configuration file (the top-level policy's, and one per
 * `sidecar.policies` entry, on the same store) and serves their decisions to a proxy: NGINX's
 * auth_request over HTTP, and with a `sidecar.grpc` section Envoy's rate limit service over gRPC.
 * The first sync is tried before it reports ready; the sync timers then run every Δ.
 */
export async function startSidecar(config: LoadedConfig, opts: SidecarStartOptions): Promise<Sidecar> {
  const gatewayFile = sidecarGatewayOptions(config.gateway);
  const options = resolveSidecarOptions(config.sidecar ?? {}, {
    gateway: { valid: true, options: gatewayFile },
  });
  if (opts.envoyConfig !== undefined) {
    if (options.grpc === null)
      options.grpc = { host: '127.0.0.1', port: DEFAULT_GRPC_PORT, domain: '', descriptors: [] };
    else if (options.grpc.domain !== '') {
      throw new ConfigError(
        'sidecar.grpc.domain',
        'and descriptors come from the --envoy-config files: leave them out (host and port stay)',
      );
    }
  } else if (options.grpc !== null && options.grpc.domain === '') {
    throw new ConfigError(
      'sidecar.grpc',
      'has no domain and descriptors: give them, or the envoyproxy/ratelimit files with --envoy-config',
    );
  }
  if (opts.httpPort !== undefined) options.http.port = opts.httpPort;
  if (opts.grpcPort !== undefined && options.grpc !== null) options.grpc.port = opts.grpcPort;
  const clock = opts.clock === undefined ? {} : { clock: opts.clock };
  // the top-level policy's gateway is the one a single-policy sidecar always ran: same id, same policy
  const gateway = createAsyncGateway({ ...gatewayFile, store: opts.store, ...clock });
  const gateways = new Map<string, AsyncGateway>([[options.defaultPolicy, gateway]]);
  if (Object.keys(options.policies).length > 0) {
    // the named ones as the library makes a set of policies: ids <id>/<name>, policyName <name>
    const set = createPolicyGateways({
      ...policyCommon(gatewayFile),
      store: opts.store,
      ...clock,
      policies: options.policies,
    });
    for (const [name, g] of set.gateways) gateways.set(name, g);
  }
  const all = [...gateways.values()];
  const registry = new Registry();
  for (const g of all) g.registerMetrics(registry);
  const metrics = new SidecarMetrics(registry);
  const decider = new Decider(gateways, options.defaultPolicy, config.http, opts.clock);
  const envoy =
    opts.envoyConfig === undefined
      ? null
      : new EnvoyLimits(
          {
            common: policyCommon(gatewayFile),
            store: opts.store,
            ...clock,
            ...(config.http === undefined ? {} : { http: config.http }),
            maxDescriptors: options.maxDescriptors,
            ipv6Subnet: decider.ipv6Subnet,
            registry,
          },
          opts.envoyConfig,
        );
  let ready = false;
  let stopping: Promise<boolean> | null = null;
  const http = createSidecarHttpServer({
    decider,
    options: options.http,
    registry,
    metrics,
    ready: () => ready && stopping === null,
  });
  const httpAddr = await listen(http, options.http.host, options.http.port);
  let grpc: { address: string; stop: () => Promise<void> } | null = null;
  try {
    if (options.grpc !== null) {
      // loaded only when used: grpc-js and the proto parser cost startup time a NGINX-only sidecar need not pay
      const { mappingAnswerer, startRlsServer } = await import('./grpc-server.js');
      const g = options.grpc;
      grpc = await startRlsServer({
        answer:
          envoy?.answer ??
          mappingAnswerer(
            {
              domain: g.domain,
              descriptors: g.descriptors,
              maxDescriptors: options.maxDescriptors,
              ipv6Subnet: decider.ipv6Subnet,
            },
            decider,
          ),
        options: g,
        metrics,
      });
    }
  } catch (err) {
    await closeServer(http);
    throw err;
  }
  // a first sync (bounded by storeTimeoutMs) brings the store's clock; if it fails, the fail mode decides
  await Promise.all([...all.map((g) => g.syncNow()), envoy?.start()]);
  for (const g of all) g.start();
  ready = true;
  return {
    gateway,
    gateways,
    options,
    registry,
    httpUrl: `http://${hostPort(httpAddr.address, httpAddr.port)}`,
    grpcAddress: grpc?.address ?? null,
    envoy,
    stop() {
      stopping ??= (async () => {
        await Promise.all([closeServer(http), grpc?.stop()]);
        const synced = await Promise.all([...all.map((g) => g.stop()), envoy?.stop() ?? true]);
        return synced.every(Boolean);
      })();
      return stopping;
    },
  };
}
