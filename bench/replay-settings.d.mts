import type { DesignId } from '../src/config.js';
import type { ReadsMode } from '../src/gateway/options.js';
import type { LogFormat } from '../src/replay/parse/options.js';

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

/** The readers' options of the bench: the command's defaults (bench/replay-settings.mjs). */
export function benchReadOptions(format: string): { format: LogFormat; spread: 'uniform'; seed: number };
