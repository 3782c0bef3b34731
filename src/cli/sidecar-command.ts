import type { Command } from 'commander';
import { ConfigError } from '../config.js';
import { type LoadedConfig, loadConfigFile } from '../config-file.js';
import { reloadEnvoyConfig, watchEnvoyConfig } from '../sidecar/envoy-watch.js';
import { EnvoyConfigError, type EnvoyRlsConfig, readEnvoyConfig } from '../sidecar/envoy-yaml.js';
import { connectRedis, parseNodes } from '../sidecar/redis-client.js';
import { type Sidecar, startSidecar } from '../sidecar/sidecar.js';
import { RedisStore } from '../store/redis/redis-store.js';
import { reportConfigError } from './config-errors.js';
import { num, UsageError } from './parse.js';
import { describeLimits } from './validate-command.js';

interface SidecarFlags {
  redis?: string;
  redisCluster?: string;
  httpPort?: string;
  grpcPort?: string;
  envoyConfig?: string;
}

export function addSidecarCommand(program: Command): void {
  program
    .command('sidecar')
    .description(
      "run one gateway beside a proxy: NGINX auth_request over HTTP, Envoy's rate limit service over gRPC (docs/nginx.md, docs/envoy.md)",
    )
    .argument('<config>', 'the gateway configuration file (JSON; its "sidecar" section: where to listen)')
    .option('--redis <url>', 'the Redis to sync with (default: $REDIS_URL)')
    .option('--redis-cluster <nodes>', 'a Redis Cluster instead: startup nodes host:port[,host:port…]')
    .option('--http-port <n>', 'override sidecar.http.port (0: any free port)')
    .option('--grpc-port <n>', 'override sidecar.grpc.port (0: any free port)')
    .option(
      '--envoy-config <path>',
      "envoyproxy/ratelimit's YAML config: a file, or a directory of them (one domain each); reloaded when changed or on SIGHUP (docs/envoy.md)",
    )
    .action(async (file: string, f: SidecarFlags) => {
      let config: LoadedConfig;
      try {
        config = loadConfigFile(file);
      } catch (err) {
        reportConfigError(err);
        return;
      }
      let envoyConfig: EnvoyRlsConfig | undefined;
      if (f.envoyConfig !== undefined) {
        try {
          envoyConfig = readEnvoyConfig(f.envoyConfig);
        } catch (err) {
          if (!(err instanceof EnvoyConfigError)) throw err;
          process.stderr.write(
            err.issues.map((i) => `fleetlimit: ${i.file}:${i.line}: ${i.field}: ${i.message}\n`).join(''),
          );
          process.exitCode = 2;
          return;
        }
      }
      const url = f.redis ?? process.env.REDIS_URL;
      if (f.redisCluster !== undefined && f.redis !== undefined)
        throw new UsageError('--redis-cluster', 'give --redis or --redis-cluster, not both');
      if (f.redisCluster === undefined && (url === undefined || url === ''))
        throw new UsageError(
          '--redis',
          'name the Redis to sync with (--redis URL, $REDIS_URL or --redis-cluster)',
        );
      const port = (flag: string, v: string | undefined) =>
        v === undefined ? undefined : num(flag, v, { integer: true, min: 0, max: 65535 });
      const httpPort = port('--http-port', f.httpPort);
      const grpcPort = port('--grpc-port', f.grpcPort);
      const target =
        f.redisCluster !== undefined ? { cluster: parseNodes(f.redisCluster) } : { url: url as string };
      let lastError = '';
      const client = await connectRedis(target, config.gateway.storeTimeoutMs ?? 200, (err) => {
        // one line per new error, not one per reconnect attempt
        if (err.message !== lastError) process.stderr.write(`fleetlimit sidecar: redis: ${err.message}\n`);
        lastError = err.message;
      });
      let sidecar: Sidecar;
      try {
        sidecar = await startSidecar(config, {
          store: new RedisStore(client, config.redis),
          ...(httpPort === undefined ? {} : { httpPort }),
          ...(grpcPort === undefined ? {} : { grpcPort }),
          ...(envoyConfig === undefined ? {} : { envoyConfig }),
        });
      } catch (err) {
        if (!(err instanceof ConfigError || err instanceof EnvoyConfigError)) throw err;
        client.disconnect();
        const lines =
          err instanceof EnvoyConfigError
            ? err.issues.map((i) => `${i.file}:${i.line}: ${i.field}: ${i.message}`)
            : [err.message];
        process.stderr.write(lines.map((l) => `fleetlimit: ${l}\n`).join(''));
        process.exitCode = 2;
        return;
      }
      let watcher: { close(): void } | null = null;
      const envoy = sidecar.envoy;
      if (envoy !== null && f.envoyConfig !== undefined) {
        const path = f.envoyConfig;
        const log = (line: string) => process.stderr.write(`fleetlimit sidecar: ${line}\n`);
        const reload = () => void reloadEnvoyConfig(path, envoy, log);
        watcher = watchEnvoyConfig(path, reload, 200, undefined, (err) =>
          log(`watching ${path}: ${err.message} (SIGHUP still reloads)`),
        );
        process.on('SIGHUP', reload);
      }
      const r = config.resolved;
      const yaml =
        envoy === null
          ? ''
          : `; ${envoy.config.limits.length} limits from ${envoy.config.files.length} envoyproxy/ratelimit file(s)`;
      process.stdout.write(
        `fleetlimit sidecar: http ${sidecar.httpUrl}${sidecar.grpcAddress === null ? '' : `, grpc ${sidecar.grpcAddress}`} (${r.design}, ${describeLimits(config)}, K = ${r.fleet.gateways}, Δ = ${r.fleet.syncMs} ms${yaml})\n`,
      );
      const shutdown = async (signal: string) => {
        process.stderr.write(`fleetlimit sidecar: ${signal}: last sync, then exit\n`);
        watcher?.close();
        const synced = await sidecar.stop();
        client.disconnect();
        process.stderr.write(`fleetlimit sidecar: stopped (last sync ${synced ? 'answered' : 'failed'})\n`);
        process.exit(0);
      };
      process.once('SIGTERM', () => void shutdown('SIGTERM'));
      process.once('SIGINT', () => void shutdown('SIGINT'));
    });
}
