import { readFileSync } from 'node:fs';
import type { Command } from 'commander';
import { ConfigError, ConfigErrors } from '../config.js';
import { type LoadedConfig, loadConfig } from '../config-file.js';
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

export function addValidateCommand(program: Command): void {
  program
    .command('validate')
    .description(
      'check a gateway configuration file (JSON; see docs/production.md: Configuration file); exits 2 naming every bad field',
    )
    .argument('<config>', 'path to the JSON file')
    .action((file: string) => {
      let text: string;
      try {
        text = readFileSync(file, 'utf8');
      } catch (err) {
        throw new UsageError('config', `cannot read ${file}: ${(err as Error).message}`);
      }
      let json: unknown;
      try {
        json = JSON.parse(text);
      } catch (err) {
        throw new UsageError('config', `${file} is not JSON: ${(err as Error).message}`);
      }
      let c: ValidatedConfig;
      try {
        c = validateConfig(json);
      } catch (err) {
        if (!(err instanceof ConfigError)) throw err;
        // every error on its own line, so that one run shows all there is to fix
        const errors = err instanceof ConfigErrors ? err.errors : [err];
        const head = errors.length > 1 ? `fleetlimit: ${file}: ${errors.length} errors\n` : '';
        process.stderr.write(head + errors.map((e) => `fleetlimit: ${e.message}\n`).join(''));
        process.exitCode = 2;
        return;
      }
      process.stdout.write(
        `${file}: valid (${c.design}, ${c.limits}, K = ${c.gateways}, Δ = ${c.syncMs} ms)\n`,
      );
    });
}
