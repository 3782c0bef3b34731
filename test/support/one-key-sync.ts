import type { Policy } from '../../src/config.js';
import type { SyncRequest } from '../../src/store/contract.js';

/**
 * A sync of one key by gateway 'g' pushing `admits` (and reading the window back unless `read` is
 * false): what the store's meta-hash tests send. Lease TTL 100 ms, expiries listed 300 ms ahead.
 */
export function keySync(policy: Policy, seq: number, admits: number[], read = true, key = 'k'): SyncRequest {
  return {
    gatewayId: 'g',
    seq,
    policy,
    leaseTtlMs: 100,
    horizonMs: 300,
    entries: [{ key, admits, read, release: false, ask: 0 }],
  };
}
