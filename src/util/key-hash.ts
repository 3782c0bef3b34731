/**
 * FNV-1a (32 bits) over the key's UTF-16 code units (a key's bytes, for ASCII), as a signed 32-bit
 * integer: stable across runs and machines, so `--route hash` sends a key where it sent it before.
 */
export function fnv1a(key: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < key.length; i++) h = Math.imul(h ^ key.charCodeAt(i), 0x01000193);
  return h;
}

/**
 * A key's hash for the tables of our own (the memory store's records, the replay's live keys): never
 * 0, which marks an empty slot. A key is a short string (an address, a token), hashed in the few
 * nanoseconds a Map's lookup takes to hash it too.
 */
export function keyHash(key: string): number {
  const h = fnv1a(key);
  return h === 0 ? 1 : h;
}

/**
 * The most slots one walk of those tables reads before the table becomes a Map for good. Keys are a
 * client's to choose and this hash is unseeded, so keys made to share a slot's neighbourhood would
 * make every walk long (quadratic work in the keys sent); a Map hashes with the process's random
 * seed. Tables at most half full of keys not chosen so walk a few slots (a run of 64 is far beyond
 * what a million such keys make), so only chosen keys trip it, and then lookups cost a Map's.
 */
export const MAX_WALK = 64;
