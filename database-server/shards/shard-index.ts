/**
 * The shard a tenant belongs to, out of `shards`: FNV-1a of its id, so the same tenant lands on the same shard
 * in every process and after every restart (its file is opened by one process only).
 */
export function shardIndex(tenant: string, shards: number): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < tenant.length; i++) {
    hash ^= tenant.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash % shards;
}
