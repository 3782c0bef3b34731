import type { Policy } from '../config.js';
import { type AnyStore, asAsyncStore } from '../store/async-adapter.js';
import type { AsyncStore } from '../store/contract.js';

/**
 * `store` with every call's policy given the name `name`, so the store keeps that policy's counts
 * apart from any other policy with the same numbers (policyTag). The runtime's options have no field
 * for a policy's name yet, and the runtime passes its policy to the store as is: this is how a
 * PolicyGateways names the policy of each of its gateways. The named copy is made once per policy
 * object (a gateway passes the same one every call).
 */
export function withPolicyName(store: AnyStore, name: string): AsyncStore {
  const inner = asAsyncStore(store);
  let from: Policy | null = null;
  let named: Policy | null = null;
  const nameOf = (p: Policy): Policy => {
    if (p !== from) {
      from = p;
      named = Object.freeze({ ...p, name });
    }
    return named!;
  };
  const out: AsyncStore = {
    clock: inner.clock,
    logAdmit: (key, policy, now, cost, call) => inner.logAdmit(key, nameOf(policy), now, cost, call),
    voidLogAdmits: (gatewayId, policy, voids, now) =>
      inner.voidLogAdmits(gatewayId, nameOf(policy), voids, now),
    sync: (req, now) => inner.sync({ ...req, policy: nameOf(req.policy) }, now),
    ask: (gatewayId, key, policy, leaseTtlMs, ask, now, seq) =>
      inner.ask(gatewayId, key, nameOf(policy), leaseTtlMs, ask, now, seq),
  };
  // gateways 'auto': each policy counts its own gateways (its live set is under its named policy)
  if (inner.heartbeat !== undefined) {
    const heartbeat = inner.heartbeat.bind(inner);
    out.heartbeat = (beat, now) => heartbeat({ ...beat, policy: nameOf(beat.policy) }, now);
  }
  return out;
}
