import { Registry } from 'prom-client';
import type { GatewayFileOptions } from '../gateway/runtime/async-options.js';
import { VALIDATION_STORE } from '../store/validation-store.js';
import { EnvoyLimits } from './envoy-limits.js';
import type { EnvoyRlsConfig } from './envoy-yaml.js';
import { policyCommon } from './named-policies.js';

/**
 * Whether every limit of `config` can be a gateway with a configuration file's gateway options
 * (`fleetlimit validate --envoy-config`): throws EnvoyConfigError naming each YAML line that cannot.
 * Nothing starts and nothing is stored (the validation store).
 */
export function checkEnvoyLimits(gateway: GatewayFileOptions, config: EnvoyRlsConfig): void {
  new EnvoyLimits(
    {
      common: policyCommon(gateway),
      store: VALIDATION_STORE,
      maxDescriptors: 1,
      ipv6Subnet: false,
      registry: new Registry(),
    },
    config,
  );
}
