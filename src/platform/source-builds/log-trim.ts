// Cutting a finished build's log down to its end (log-retention.ts). Only deletes, the oldest chunks first: whatever
// point a crash stops it at, the chunks left are still the log's end with a gap before them, which a reader is told
// of (readBuildLog), and trimming again finishes the work.
import { inParallel } from '../../collections/in-parallel.ts';
import { listAll } from '../../object-store/list-all.ts';
import type { ObjectInfo, ObjectStore } from '../../object-store/object-store.ts';
import { buildLogPrefix } from './build-log.ts';
import { TRIMMED_LOG_BYTES } from './log-retention.ts';

/** Deletes are sent this many at a time: a log of many small chunks is not deleted in one burst. */
const DELETES_AT_ONCE = 32;

/**
 * Keeps the last chunks of a finished build's log that fit in {@link TRIMMED_LOG_BYTES} (and its end marker) and
 * deletes the others; answers the bytes deleted (0 when the log was small or trimmed already). Not for a log still
 * being written: its writer would go on after the gap.
 */
export async function trimBuildLog(store: ObjectStore, namespace: string, build: string): Promise<number> {
  const chunks: ObjectInfo[] = [];
  for await (const item of listAll(store, buildLogPrefix(namespace, build))) if (item.key.endsWith('.txt')) chunks.push(item);
  let kept = 0;
  let first = chunks.length;
  while (first > 0 && kept + (chunks[first - 1]?.size ?? 0) <= TRIMMED_LOG_BYTES) {
    first -= 1;
    kept += chunks[first]?.size ?? 0;
  }
  const removed = chunks.slice(0, first);
  await inParallel(removed, (c) => store.delete(c.key), DELETES_AT_ONCE);
  return removed.reduce((sum, c) => sum + c.size, 0);
}
