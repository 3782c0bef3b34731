/**
 * `--route`: which of K gateways serves each arrival when one log is split over K: in turn
 * (round-robin, in time order), by a hash of the key (a key always lands on the same gateway), or by
 * a seeded draw.
 */
import { Random } from '../../sim/random.js';
import { fnv1a } from '../../util/key-hash.js';
import type { RouteMode } from './options.js';

/** A gateway picker for arrivals taken in time order. */
export function makeRouter(mode: RouteMode, gateways: number, seed: number): (key: string) => number {
  if (mode === 'round-robin') {
    let next = 0;
    return () => {
      const g = next;
      next = next + 1 === gateways ? 0 : next + 1;
      return g;
    };
  }
  if (mode === 'hash') return (key) => (fnv1a(key) >>> 0) % gateways;
  const random = new Random(seed);
  return () => Math.floor(random.uniform() * gateways);
}
