/**
 * A key's hash for the tables of our own (the memory store's records, the replay's live keys): never
 * 0, which marks an empty slot. FNV-1a over the key's UTF-16 code units: a key is a short string (an
 * address, a token), hashed in the few nanoseconds a Map's lookup takes to hash it too.
 */
export function keyHash(key: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < key.length; i++) h = Math.imul(h ^ key.charCodeAt(i), 0x01000193);
  return h === 0 ? 1 : h;
}
