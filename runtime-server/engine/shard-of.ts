/**
 * The shard (workerd process) that serves a project's apps: FNV-1a of the project id, modulo the shard
 * count. By project, so one tenant's stuck code stalls at most the shard its projects hash to; a stable hash,
 * so every replica with the same count places a project alike and a restart changes nothing.
 */
export function shardOf(project: string, shards: number): number {
  if (shards <= 1) return 0;
  let hash = 0x811c9dc5;
  for (let i = 0; i < project.length; i++) {
    hash ^= project.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash % shards;
}
