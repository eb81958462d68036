// The rollout's affinity hash in the dispatcher, per request: the same function as `keyHash` in
// src/runtime-contract/releases.ts (dispatcher.test.ts checks they agree), so whatever reads the RuntimeApp
// can tell which release a key is on.

/** FNV-1a over the UTF-16 code units, then murmur3's finaliser. */
export function keyHash(text) {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}
