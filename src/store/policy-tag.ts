import { type Policy, requirePolicyName } from '../config.js';

/**
 * A policy's identity in a store: its name (if any), limit, window and window kind, as
 * `[<name>=]<limit>/<windowMs><s|f>`, e.g. `free=10/60000s` or `100/1000f`. Both stores keep a key's
 * records per tag, so the same key string under two policies is two counters, by construction
 * (issue 20: a 10-route and a 100-route on one store shared one). The numbers are in it even when a
 * name is given: changing `free` from 10 to 20 starts a new counter rather than reading the old
 * one's counts against another limit (the old records age out within a window). Gateways of one
 * fleet pass the same policy, so they share its counter as before.
 *
 * A name is a POLICY_NAME (no `=`, `/`, `:`, `#`, braces or brackets), so a tag never contains the
 * separators of a Redis key name (see keyNames) and two different policies never share a tag.
 */
export function policyTag(p: Policy): string {
  // a Policy written as a literal skips makePolicy: its name is checked here, where it matters
  if (p.name !== undefined) requirePolicyName('policy.name', p.name);
  const numbers = `${p.limit}/${p.windowMs}${p.windowKind === 'fixed' ? 'f' : 's'}`;
  return p.name === undefined ? numbers : `${p.name}=${numbers}`;
}
