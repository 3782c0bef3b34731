// sidecar.policies: the named policies beside the top-level one, each checked as the gateway it
// becomes, its errors named under the sidecar section.
import { ConfigChecks, ConfigError, ConfigErrors, requireKnownFields, requirePolicyName } from '../config.js';
import { createPolicyGateways } from '../gateway/policies.js';
import { ASYNC_GATEWAY_FIELDS, type GatewayFileOptions } from '../gateway/runtime/async-options.js';
import { VALIDATION_STORE } from '../store/validation-store.js';
import { object } from './field-checks.js';
import type { SidecarContext, SidecarPolicyFileOptions } from './options.js';

/** A named policy's options: the gateway's, less its identity (id, policyName: the name) and code. */
const POLICY_FIELDS = ASYNC_GATEWAY_FIELDS.filter(
  (f) => !['id', 'policyName', 'store', 'clock', 'random'].includes(f),
);
/** Named policies per sidecar: each is a gateway with its own sync timer and key cap. */
export const MAX_POLICIES = 16;

/** What every named policy takes from the top level: its gateway options less limit, window and name. */
export type CommonGatewayOptions = Omit<GatewayFileOptions, 'limit' | 'windowMs' | 'policyName'>;

/** The top-level gateway options every named policy starts from (its own fields then override them). */
export function policyCommon(gateway: GatewayFileOptions): CommonGatewayOptions {
  const { limit: _l, windowMs: _w, policyName: _p, ...common } = gateway;
  return common;
}

/** A PolicyGateways error, named under the sidecar section: `sidecar.policies.<name>.<field>`. */
export function underSidecar(e: ConfigError, policies: Record<string, Record<string, unknown>>): ConfigError {
  const message = e.message.slice(e.field.length + 2);
  if (e.field.startsWith('policies.')) return new ConfigError(`sidecar.${e.field}`, message);
  // a common option checked with one policy (syncMs over its windowMs): named under that policy, where
  // the fix goes, saying so when the value came from the top level
  const m = / \(with policies\.([^)]+)\)$/.exec(message);
  if (m === null) return new ConfigError(e.field, message);
  const own = policies[m[1]]?.[e.field] !== undefined;
  return new ConfigError(
    `sidecar.policies.${m[1]}.${e.field}`,
    `${message.slice(0, m.index)}${own ? '' : ` (the top-level ${e.field}: set one for this policy)`}`,
  );
}

/**
 * `sidecar.policies`: each name a policy name other than the top-level one, each value the gateway
 * options it sets (limit and windowMs at least). With valid top-level options, each is checked as
 * the gateway it becomes (createPolicyGateways: `syncMs` at most its `windowMs`, and so on).
 */
export function namedPolicies(
  v: unknown,
  defaultPolicy: string,
  ctx: SidecarContext,
  c: ConfigChecks,
): Record<string, SidecarPolicyFileOptions> {
  const o = c.check(() => object('sidecar.policies', v));
  if (o === undefined) return {};
  const names = Object.keys(o);
  if (names.length === 0 || names.length > MAX_POLICIES) {
    c.errors.push(
      new ConfigError('sidecar.policies', `must name 1 to ${MAX_POLICIES} policies, got ${names.length}`),
    );
    return {};
  }
  const out: Record<string, SidecarPolicyFileOptions> = {};
  for (const name of names) {
    const field = `sidecar.policies.${name}`;
    const ok = c.check(() => {
      requirePolicyName(field, name);
      if (name === defaultPolicy) {
        throw new ConfigError(
          field,
          `is the top-level policy's name (its policyName, else "default"): give one of them another name`,
        );
      }
      const p = object(field, o[name]);
      const fields = new ConfigChecks();
      requireKnownFields(field, p, POLICY_FIELDS, fields);
      fields.done();
      for (const f of ['limit', 'windowMs'] as const) {
        if (p[f] === undefined) throw new ConfigError(`${field}.${f}`, 'is required for a named policy');
      }
      return p;
    });
    if (ok !== undefined) out[name] = ok as SidecarPolicyFileOptions;
  }
  if (ctx.gateway?.valid === true && Object.keys(out).length === names.length) {
    c.errors.push(...policyErrors(policyCommon(ctx.gateway.options), out));
  } else if (ctx.gateway !== undefined) {
    // the top level is bad, or another policy is (those errors are reported already): each policy's
    // own fields are still checked, over placeholder common options, so one run names every bad field.
    // Only errors on a field the policy sets are kept: a relation with a placeholder would blame the
    // wrong value (underSidecar names those under the policy too, but the policy does not set them)
    for (const [name, p] of Object.entries(out)) {
      const prefix = `sidecar.policies.${name}.`;
      for (const e of policyErrors(PLACEHOLDER_COMMON, { [name]: p })) {
        if (e.field.startsWith(prefix) && Object.hasOwn(p, e.field.slice(prefix.length).split('.')[0]))
          c.errors.push(e);
      }
    }
  }
  return out;
}

/** Common options that pass every check, standing in for a top level that does not. */
const PLACEHOLDER_COMMON: CommonGatewayOptions = {
  id: 'validate',
  design: 'central-log',
  gateways: 2,
  syncMs: 1000,
};

/** The errors of the policies checked as the gateways they become, named under the sidecar section. */
export function policyErrors(
  common: CommonGatewayOptions,
  policies: Record<string, SidecarPolicyFileOptions>,
): ConfigError[] {
  try {
    createPolicyGateways({ ...common, store: VALIDATION_STORE, policies });
    return [];
  } catch (e) {
    if (!(e instanceof ConfigError)) throw e;
    return (e instanceof ConfigErrors ? e.errors : [e]).map((x) => underSidecar(x, policies));
  }
}
