// The events bridge's cursor (`events/cursor.json`, written by the bridge): log retention never retires an
// entry the bridge has not delivered, so the bridge's gap stays bounded by what retention promises.
import type { ObjectStore } from '../object-store/object-store.ts';
import { Fields } from '../repo-store/json-fields.ts';
import { eventsCursorKey } from '../repo-store/layout.ts';
import type { RepoPath } from '../repo-store/repo-path.ts';

/** The last seq the webhook acknowledged, or `undefined` when no bridge has delivered for this repository. */
export async function deliveredSeq(store: ObjectStore, repo: RepoPath): Promise<number | undefined> {
  const key = eventsCursorKey(repo);
  const got = await store.get(key);
  if (got?.kind !== 'object') return undefined;
  return Fields.parse(key, got.body).seq('published_seq');
}
