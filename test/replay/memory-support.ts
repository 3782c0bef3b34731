/**
 * A long stream whose keys come and go: memory must follow the keys live within W, not the arrivals.
 * Not leases: a leases gateway keeps a key as long as the store grants it a slot (the library's key
 * cap, 1,000,000 by default, is what lets it go), so its memory follows the keys seen (docs/replay.md).
 */

import type { DesignId } from '../../src/config.js';
import type { Arrival } from '../../src/replay/arrival.js';
import { ReplayRun, type RunOptions } from '../../src/replay/run/engine.js';
import { Random } from '../../src/sim/random.js';

/** n arrivals at 100 per second; every 2,000 arrivals (20 s) a fresh set of 40 keys. W = 10 s. */
export function* churningArrivals(n: number, seed = 1): Generator<Arrival> {
  const rng = new Random(seed);
  let t = 0;
  for (let i = 0; i < n; i++) {
    t += rng.exponential(0.1);
    yield { t, key: `u${Math.floor(i / 2000)}-${Math.floor(rng.uniform() * 40)}`, gateway: i % 4 };
  }
}

export interface Watched {
  maxLive: number;
  maxGatewayKeys: number;
  maxStoreKeys: number;
  run: ReplayRun;
}

/** Replays n churning arrivals, sampling what is held every `every` arrivals (and calling `sample`). */
export function replayChurn(
  n: number,
  every: number,
  sample: (i: number) => void = () => {},
  /** The designs, and the run's options (a chunk: key-grouped, for designs that allow it). */
  how: { designs: DesignId[]; options: RunOptions } = {
    designs: ['shared-counter', 'leases-ask'],
    options: {},
  },
): Watched {
  const run = new ReplayRun(
    {
      designs: how.designs,
      gateways: 4,
      limit: 20,
      windowMs: 10_000,
      syncMs: 1000,
      seed: 1,
      top: 5,
    },
    null,
    how.options,
  );
  const w: Watched = { maxLive: 0, maxGatewayKeys: 0, maxStoreKeys: 0, run };
  let i = 0;
  for (const a of churningArrivals(n)) {
    run.push(a);
    if (++i % every === 0) {
      const held = run.heldState();
      w.maxLive = Math.max(w.maxLive, run.liveKeys);
      w.maxGatewayKeys = Math.max(w.maxGatewayKeys, held.gatewayKeys);
      w.maxStoreKeys = Math.max(w.maxStoreKeys, held.storeKeys);
      sample(i);
    }
  }
  return w;
}
