/**
 * The simulator's bytes per held key (src/sim/key-bytes.ts) is a measurement of the library's own
 * gateways: this re-measures it (bench/key-bytes.mjs on the sources, 30,000 keys) so that a design
 * gaining state cannot leave the study's gateway memory understated. The figures of 2026-12-02 had
 * gone stale this way by 35–76 % before this test existed.
 */
import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { KEY_BYTES } from '../../src/sim/key-bytes.js';

/** Measured at 30,000 keys vs 200,000: within 2 %; between runs, leases-ask moves by 3 %. */
const TOLERANCE = 0.1;

describe('KEY_BYTES', () => {
  it('is within 10 % of what each design holds per key today', () => {
    const out = execFileSync(
      process.execPath,
      ['--expose-gc', '--import', 'tsx', 'bench/key-bytes.mjs', '30000'],
      {
        env: { ...process.env, FLEETLIMIT_SRC: '1' },
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'ignore'],
        timeout: 60_000,
      },
    );
    const measured = JSON.parse(out.trim().split('\n').at(-1) as string) as Record<string, number>;
    for (const [design, bytes] of Object.entries(KEY_BYTES)) {
      const m = measured[design];
      // a failure names the figure to write (from `npm run build && node --expose-gc bench/key-bytes.mjs`)
      expect({ design, bytes: Math.abs(m - bytes) <= TOLERANCE * Math.max(m, 1) ? bytes : m }).toEqual({
        design,
        bytes,
      });
    }
  }, 90_000);
});
