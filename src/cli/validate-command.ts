import type { Command } from 'commander';
import { type LoadedConfig, loadConfig, readJsonFile } from '../config-file.js';
import { checkEnvoyLimits } from '../sidecar/envoy-limits-check.js';
import { EnvoyConfigError, readEnvoyConfig } from '../sidecar/envoy-yaml.js';
import { reportConfigError } from './config-errors.js';
import { UsageError } from './parse.js';

export interface ValidatedConfig {
  design: string;
  limit: number;
  windowMs: number;
  /** K, or 'auto' (counted by the store). */
  gateways: number | 'auto';
  syncMs: number;
  /** The limits, each policy's where the sidecar names several (describeLimits). */
  limits: string;
}

/** "L = 100 per 60000 ms", or with the sidecar's named policies "api: L = 100 per 60000 ms; per-ip: …". */
export function describeLimits(loaded: LoadedConfig): string {
  const one = (limit: number, windowMs: number) => `L = ${limit} per ${windowMs} ms`;
  const { policy } = loaded.resolved;
  const named = Object.entries(loaded.sidecar?.policies ?? {});
  if (named.length === 0) return one(policy.limit, policy.windowMs);
  return [
    `${loaded.gateway.policyName ?? 'default'}: ${one(policy.limit, policy.windowMs)}`,
    ...named.map(([name, p]) => `${name}: ${one(p.limit, p.windowMs)}`),
  ].join('; ');
}

/**
 * Checks a parsed configuration file (see loadConfig in src/config-file.ts, which the package
 * exports); throws a ConfigError naming the bad field, or ConfigErrors naming every one.
 */
export function validateConfig(raw: unknown): ValidatedConfig {
  const loaded = loadConfig(raw);
  const { policy, fleet, design, autoGateways } = loaded.resolved;
  return {
    limits: describeLimits(loaded),
    design,
    limit: policy.limit,
    windowMs: policy.windowMs,
    gateways: autoGateways ? 'auto' : fleet.gateways,
    syncMs: fleet.syncMs,
  };
}

/**
 * What is wrong with envoyproxy/ratelimit files beside a valid configuration file, one line each: the
 * files' own problems, limits its gateway options cannot hold, and a `sidecar.grpc` that names a
 * domain and descriptors of its own (the files give them).
 */
function envoyIssues(json: unknown, path: string): string[] {
  const loaded = loadConfig(json);
  const out: string[] = [];
  if (loaded.sidecar?.grpc?.domain !== undefined || loaded.sidecar?.grpc?.descriptors !== undefined) {
    out.push(
      'sidecar.grpc.domain: and descriptors come from the --envoy-config files: leave them out (host and port stay)',
    );
  }
  try {
    checkEnvoyLimits(loaded.gateway, readEnvoyConfig(path));
  } catch (err) {
    if (!(err instanceof EnvoyConfigError)) throw err;
    out.push(...err.issues.map((i) => `${i.file}:${i.line}: ${i.field}: ${i.message}`));
  }
  return out;
}

export function addValidateCommand(program: Command): void {
  program
    .command('validate')
    .description(
      'check a gateway configuration file (JSON; see docs/production.md: Configuration file); exits 2 naming every bad field',
    )
    .argument('<config>', 'path to the JSON file')
    .option(
      '--envoy-config <path>',
      'also check envoyproxy/ratelimit YAML files (a file or a directory) as `fleetlimit sidecar --envoy-config` takes them with this file',
    )
    .action((file: string, f: { envoyConfig?: string }) => {
      const json = readJsonFile(file, (message) => new UsageError('config', message));
      let c: ValidatedConfig;
      try {
        c = validateConfig(json);
      } catch (err) {
        reportConfigError(err, file);
        return;
      }
      let yaml = '';
      if (f.envoyConfig !== undefined) {
        const issues = envoyIssues(json, f.envoyConfig);
        if (issues.length > 0) {
          const head = issues.length > 1 ? `fleetlimit: ${f.envoyConfig}: ${issues.length} errors\n` : '';
          process.stderr.write(head + issues.map((l) => `fleetlimit: ${l}\n`).join(''));
          process.exitCode = 2;
          return;
        }
        const cfg = readEnvoyConfig(f.envoyConfig);
        yaml = `; ${f.envoyConfig}: valid, ${cfg.limits.length} limits in ${cfg.files.length} file(s)`;
      }
      process.stdout.write(
        `${file}: valid (${c.design}, ${c.limits}, K = ${c.gateways}, Δ = ${c.syncMs} ms)${yaml}\n`,
      );
    });
}
