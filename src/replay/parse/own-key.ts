/**
 * A key as a parser cuts it is a slice of the chunk its line was read in (V8 keeps a slice of 13
 * characters or more as a view of its parent). Kept by the reorder window, the engine's tallies or a
 * gateway's map, it would keep that whole chunk alive: 64 KiB for a key of a dozen characters.
 */

/**
 * `key` as a string of its own. Slicing a concatenation flattens it into a new string first, so the
 * result holds only that; a shorter slice is a copy already.
 */
export function ownKey(key: string): string {
  return hashedNow(key.length < 13 ? key : `${key} `.slice(0, -1));
}

/** Buffer's own latin1 decoding, without toString's checks of its arguments (not in its types). */
interface Latin1 {
  latin1Slice(start: number, end: number): string;
}

/**
 * b[from, to), ASCII, as a string of its own: decoded from the bytes, it holds nothing of their chunk.
 * (Found again in a cache of the keys read lately instead, a key cost more than this in the readers
 * than it saved in the engine's maps: a slot and a string out of the processor's caches a line.)
 */
export function asciiKey(b: Buffer, from: number, to: number): string {
  return hashedNow((b as unknown as Latin1).latin1Slice(from, to));
}

/** A map of one entry: a lookup in it has V8 compute a string's hash, which the string then keeps. */
const HASHER = new Map<string, true>([['', true]]);

/**
 * `key`, its hash computed now, while its characters are in the processor's caches. The reorder
 * window holds a line for up to a minute, and the engine's map lookup then hashed a key read a
 * minute before, out of the caches (on a log of 200,000 quiet keys the lookup was a fifth of an
 * engine-only replay's time); a string keeps its hash, so every map after the first finds it there.
 */
function hashedNow(key: string): string {
  HASHER.has(key);
  return key;
}
