// sidecar.grpc.descriptors: Envoy descriptor rules checked and resolved to the policy each is held to.
import { ConfigChecks, ConfigError, requireKnownFields } from '../config.js';
import { knownPolicy, object } from './field-checks.js';
import type { DescriptorRule } from './options.js';

const RULE_FIELDS = ['keys', 'policy'];
/** Entry keys per descriptor rule, and rules per configuration: bounded like every client-driven cost. */
const MAX_RULE_KEYS = 8;
const MAX_RULES = 64;

export function ruleKeys(field: string, r: unknown): string[] {
  if (
    !Array.isArray(r) ||
    r.length === 0 ||
    r.length > MAX_RULE_KEYS ||
    !r.every((k) => typeof k === 'string' && k.length > 0 && k.length <= 128)
  ) {
    throw new ConfigError(
      field,
      `must be a list of 1 to ${MAX_RULE_KEYS} descriptor entry keys (strings of 1 to 128 characters), got ${JSON.stringify(r)}`,
    );
  }
  return r as string[];
}

/**
 * The descriptor rules: `["api_key"]` is held to the default policy, `{ "keys": [...], "policy": "per-ip" }`
 * to the one named. One list of keys held to two policies is refused: a descriptor gets one status.
 */
export function rules(
  field: string,
  v: unknown,
  defaultPolicy: string,
  known: readonly string[],
): DescriptorRule[] {
  if (!Array.isArray(v) || v.length === 0 || v.length > MAX_RULES) {
    throw new ConfigError(
      field,
      `must be a list of 1 to ${MAX_RULES} descriptor rules, each a list of entry keys or { "keys": [...], "policy": "name" } (e.g. [["api_key"]])`,
    );
  }
  const c = new ConfigChecks();
  const out: DescriptorRule[] = [];
  v.forEach((r, i) => {
    const at = `${field}[${i}]`;
    const rule = c.check((): DescriptorRule => {
      if (Array.isArray(r)) return { keys: ruleKeys(at, r), policy: defaultPolicy };
      const o = object(at, r);
      const fields = new ConfigChecks();
      requireKnownFields(at, o, RULE_FIELDS, fields);
      fields.done();
      const keys = ruleKeys(`${at}.keys`, o.keys);
      const policy = o.policy === undefined ? defaultPolicy : knownPolicy(`${at}.policy`, o.policy, known);
      return { keys, policy };
    });
    if (rule === undefined) return;
    const same = out.findIndex(
      (x) => x.keys.length === rule.keys.length && x.keys.every((k, j) => k === rule.keys[j]),
    );
    if (same >= 0 && out[same].policy !== rule.policy) {
      c.errors.push(
        new ConfigError(
          at,
          `has the entry keys of ${field}[${same}] but policy "${rule.policy}", not "${out[same].policy}": a descriptor is held to one policy (add an entry, e.g. a generic_key, to tell them apart)`,
        ),
      );
    } else if (same < 0) out.push(rule);
  });
  c.done();
  return out;
}
