import type { ReadsMode } from '../gateway/options.js';
import type { GatewayFileOptions } from '../gateway/runtime/async-options.js';

/**
 * The sidecar's own default for `reads` (decision 0016): a sidecar serves a proxy's every key, a long
 * tail of quiet ones, and reading each held key every Δ cost its Redis more than a per-request
 * service at 100,000 keys (issue 35). With reads on request a key's store work is at most one read
 * per request and one per Δ. A file that sets `reads` keeps it; the library's default is unchanged.
 */
export const SIDECAR_READS: ReadsMode = 'on-request';

/** The file's gateway options with the sidecar's defaults where the file is silent. */
export function sidecarGatewayOptions(gateway: GatewayFileOptions): GatewayFileOptions {
  return gateway.reads === undefined ? { ...gateway, reads: SIDECAR_READS } : gateway;
}
