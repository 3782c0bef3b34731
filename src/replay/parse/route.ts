/**
 * `--route`: which of K gateways serves each arrival when one log is split over K: in turn
 * (round-robin, in time order), by a hash of the key (a key always lands on the same gateway), or by
 * a seeded draw.
 */
import { Random } from '../../sim/random.js';
import type { RouteMode } from './options.js';

/** FNV-1a over the key's UTF-16 code units: stable across runs and machines. */
export function keyHash(key: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < key.length; i++) {
    h ^= key.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

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
  if (mode === 'hash') return (key) => keyHash(key) % gateways;
  const random = new Random(seed);
  return () => Math.floor(random.uniform() * gateways);
}
