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
  return key.length < 13 ? key : `${key} `.slice(0, -1);
}
