import { inParallel } from '../../../src/collections/in-parallel.ts';
import type { ObjectStore } from '../../../src/object-store/object-store.ts';
import { appArtifactPrefix } from '../../../src/platform/artifact-keys.ts';

/** Artifact deletions under way at once. */
const PARALLEL = 8;
/**
 * Listings one teardown makes at most: far more than an app's artifacts fill (a page holds up to 1,000 keys,
 * an app keeps 100 builds), so reaching it means keys keep coming back; the controller retries with backoff.
 */
const MAX_PASSES = 100;

/**
 * Deletes every stored build artifact of the app (everything under {@link appArtifactPrefix}), a page of
 * the listing at a time; answers how many it deleted. Idempotent: each pass lists what is still there, so
 * one interrupted part way (a crash, the store failing) is finished by the next. The prefix is listed once
 * more after the last page, until it comes back empty, for an upload that landed during the sweep.
 */
export async function deleteAppArtifacts(store: ObjectStore, project: string, app: string): Promise<number> {
  const prefix = appArtifactPrefix(project, app);
  let deleted = 0;
  for (let pass = 0; pass < MAX_PASSES; pass++) {
    // Always the first page: what was deleted is no longer listed, so no cursor is needed.
    const page = await store.list(prefix);
    if (page.items.length === 0) return deleted;
    await inParallel(page.items, (item) => store.delete(item.key), PARALLEL);
    deleted += page.items.length;
  }
  throw new Error(`artifacts under ${prefix} were still listed after ${MAX_PASSES} passes of deletion`);
}
