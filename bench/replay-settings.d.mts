import type { ReadOptions } from '../src/replay/parse/options.js';
import type { ReplaySettings } from '../src/replay/run/result.js';

/** The replay bench's settings (bench/replay-settings.mjs). */
export function benchReplaySettings(
  designs: readonly string[],
  reads?: string,
  gateways?: number,
): ReplaySettings;

/** The readers' options of the bench: the command's defaults (bench/replay-settings.mjs). */
export function benchReadOptions(format: string, gateways?: number, route?: string): ReadOptions;
