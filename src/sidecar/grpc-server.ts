import { fileURLToPath } from 'node:url';
import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import type { Decision } from '../gateway/decision.js';
import type { Decider } from './decider.js';
import {
  buildResponse,
  type EnvoyMapping,
  planRequest,
  type RlsAnswered,
  type RlsAnswerer,
  type RlsRequest,
} from './envoy.js';
import type { SidecarMetrics } from './metrics.js';

/** The trimmed Envoy API (src/sidecar/proto, copied beside the build). */
export const PROTO_DIR = fileURLToPath(new URL('./proto', import.meta.url));
export const RLS_PROTO = 'envoy/service/ratelimit/v3/rls.proto';

/** How the proto is decoded: field names as in the .proto, 64-bit integers as strings, enums by name. */
export const LOADER_OPTIONS: protoLoader.Options = {
  keepCase: true,
  longs: String,
  enums: String,
  defaults: true,
  oneofs: true,
  includeDirs: [PROTO_DIR],
};

/** Envoy's RateLimitRequest with the entries' key and value as bytes (see the file): what the server decodes. */
export const RLS_BYTES_PROTO = 'fleetlimit/sidecar/v1/rls_bytes.proto';

/** The RateLimitService definition from the vendored proto (the tests' client loads the same one). */
export function loadRateLimitService(): grpc.ServiceClientConstructor {
  const def = protoLoader.loadSync(RLS_PROTO, LOADER_OPTIONS);
  const pkg = grpc.loadPackageDefinition(def) as unknown as {
    envoy: { service: { ratelimit: { v3: { RateLimitService: grpc.ServiceClientConstructor } } } };
  };
  return pkg.envoy.service.ratelimit.v3.RateLimitService;
}

/**
 * The service as the server runs it: Envoy's path, request and response, but the request decoded
 * with the entries' key and value as bytes (Buffers), so that a value that is not valid UTF-8 is not
 * made U+FFFD and merged with others (issue 32); envoy.ts keys the bytes losslessly.
 */
export function rateLimitServerDefinition(): grpc.ServiceDefinition {
  const service = loadRateLimitService().service;
  const def = protoLoader.loadSync(RLS_BYTES_PROTO, LOADER_OPTIONS);
  const bytes = (
    def['fleetlimit.sidecar.v1.RateLimitServiceBytes'] as unknown as Record<
      string,
      grpc.MethodDefinition<unknown, unknown>
    >
  ).ShouldRateLimit;
  return {
    ...service,
    ShouldRateLimit: { ...service.ShouldRateLimit, requestDeserialize: bytes.requestDeserialize },
  };
}

/**
 * grpc-js options of the sidecar's server: channelz (grpc-js's own call and socket statistics, read
 * only through its channelz service, which the sidecar does not serve) off, so that a call does not
 * count itself into it (issue 35: the gRPC door's work per request).
 */
export const RLS_SERVER_OPTIONS: grpc.ServerOptions = { 'grpc.enable_channelz': 0 };

export interface RlsServerDeps {
  /** How a request is answered: the JSON rules (mappingAnswerer) or envoyproxy/ratelimit files (EnvoyLimits). */
  answer: RlsAnswerer;
  options: { host: string; port: number };
  metrics: SidecarMetrics;
}

/**
 * The JSON configuration's answer: the domain and descriptors mapped to policies and keys
 * (planRequest), each limited descriptor decided, the response built (buildResponse).
 */
export function mappingAnswerer(mapping: EnvoyMapping, decider: Decider): RlsAnswerer {
  return (req) => {
    const plan = planRequest(req, mapping);
    if (!plan.ok) return plan;
    // a rule names only policies the configuration has (checked at load): each exists here
    const pending = plan.items.map((it) => {
      const p = it.limited ? decider.policy(it.policy) : undefined;
      if (!it.limited || p === undefined) return null;
      return it.refund ? p.refundHits(it.key, it.cost) : p.decideKept(it.key, it.cost);
    });
    const answer = (decisions: (Decision | null)[]): RlsAnswered => {
      const response = buildResponse(plan.items, decisions, decider);
      const outcome = decisions.every((d) => d === null)
        ? 'skipped'
        : response.overall_code === 'OK'
          ? 'allowed'
          : 'limited';
      return { response, outcome };
    };
    if (pending.some((p) => p instanceof Promise))
      return { ok: true, answered: Promise.all(pending).then(answer) };
    return { ok: true, answered: answer(pending as (Decision | null)[]) };
  };
}

/**
 * Envoy's rate limit service on grpc-js: ShouldRateLimit answered by `deps.answer` with the overall
 * code, a status per descriptor and the headers to add. Bad input is INVALID_ARGUMENT with a message
 * saying what is wrong.
 */
export async function startRlsServer(
  deps: RlsServerDeps,
): Promise<{ address: string; stop: () => Promise<void> }> {
  const { metrics } = deps;
  const service = rateLimitServerDefinition();
  const server = new grpc.Server(RLS_SERVER_OPTIONS);
  server.addService(service, {
    ShouldRateLimit: (
      call: grpc.ServerUnaryCall<RlsRequest, unknown>,
      callback: grpc.sendUnaryData<unknown>,
    ) => {
      const a = deps.answer(call.request);
      if (!a.ok) {
        metrics.count('grpc', 'invalid');
        callback({ code: grpc.status.INVALID_ARGUMENT, details: a.problem });
        return;
      }
      const send = ({ response, outcome }: RlsAnswered) => {
        metrics.count('grpc', outcome);
        callback(null, response);
      };
      if (a.answered instanceof Promise) {
        a.answered.then(send, (err: unknown) =>
          callback({ code: grpc.status.INTERNAL, details: err instanceof Error ? err.message : String(err) }),
        );
      } else send(a.answered);
    },
  });
  const host = deps.options.host.includes(':') ? `[${deps.options.host}]` : deps.options.host;
  const port = await new Promise<number>((resolve, reject) => {
    server.bindAsync(`${host}:${deps.options.port}`, grpc.ServerCredentials.createInsecure(), (err, p) =>
      err === null ? resolve(p) : reject(err),
    );
  });
  return {
    address: `${host}:${port}`,
    stop: () =>
      new Promise<void>((resolve) => {
        // calls in flight finish; a client that holds its stream open is cut after 2 s
        const force = setTimeout(() => server.forceShutdown(), 2000);
        server.tryShutdown(() => {
          clearTimeout(force);
          resolve();
        });
      }),
  };
}
