import type { DesignId } from '../src/config.js';
import type { ReadsMode } from '../src/gateway/options.js';

/** The replay bench's settings (bench/replay-settings.mjs). */
export function benchReplaySettings(
  designs: readonly string[],
  reads?: string,
): {
  designs: DesignId[];
  gateways: number;
  limit: number;
  windowMs: number;
  syncMs: number;
  seed: number;
  top: number;
  reads?: ReadsMode;
};
