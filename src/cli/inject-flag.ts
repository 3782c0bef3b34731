/** `fleetlimit fleet --inject`: a fault to inject, parsed at the edge (errors name the flag). */
import type { Injection } from '../fleet/settings.js';
import { durationMs, UsageError } from './parse.js';

const FLAG = '--inject';
const LOSS_HOLD_MS = 250;

/**
 * `latency=20ms`, `loss=5%` (or `loss=5%/1s`: how long a hit connection stays blackholed before it
 * is reset, default 250 ms, just past the runtime's default 200 ms store timeout), `down=2s@10s`
 * (down for 2 s, 10 s after the load starts). See fault-proxy.ts for what each does on the wire.
 */
export function parseInjection(raw: string): Injection {
  const m = /^\s*(latency|loss|down)\s*=\s*(.+?)\s*$/.exec(raw);
  if (m === null) {
    throw new UsageError(FLAG, `expected latency=20ms, loss=5% or down=2s@10s; got "${raw}"`);
  }
  const [, kind, value] = m;
  if (kind === 'latency') return { kind, ms: durationMs(FLAG, value, 'ms') };
  if (kind === 'loss') {
    const l = /^(\d+(?:\.\d+)?)%(?:\/(.+))?$/.exec(value);
    if (l === null)
      throw new UsageError(FLAG, `loss: expected a percentage like 5% or 5%/1s; got "${value}"`);
    const pct = Number(l[1]);
    if (!(pct > 0 && pct <= 100)) throw new UsageError(FLAG, `loss: must be in (0 %, 100 %], got ${l[1]} %`);
    const holdMs = l[2] === undefined ? LOSS_HOLD_MS : durationMs(FLAG, l[2]);
    return { kind, fraction: pct / 100, holdMs };
  }
  const d = /^([^@]+)@(.+)$/.exec(value);
  if (d === null) throw new UsageError(FLAG, `down: expected FOR@AT like 2s@10s; got "${value}"`);
  return { kind: 'down', forMs: durationMs(FLAG, d[1]), atMs: durationMs(FLAG, d[2]) };
}
