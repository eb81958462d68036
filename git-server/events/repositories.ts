// Every repository of a bucket, for the bridge's sweep: the owners under `repos/`, then each owner's
// repositories, two delimiter listings deep (never a listing of every object).
import { listAllPrefixes } from '../../src/object-store/list-all.ts';
import type { ObjectStore } from '../../src/object-store/object-store.ts';
import { isValidSegment } from '../../src/repo-store/repo-path.ts';

const ROOT = 'repos/';

/**
 * `owner/repo` of every repository prefix in the bucket, in key order. A prefix is listed whether or not its
 * manifest exists (a deletion under way leaves objects behind a while): the caller reads the head and skips
 * what is not a repository.
 */
export async function* listRepositories(store: ObjectStore): AsyncGenerator<string> {
  for await (const owner of listAllPrefixes(store, ROOT)) {
    const ownerName = owner.slice(ROOT.length, -1);
    if (!isValidSegment(ownerName)) continue;
    for await (const repo of listAllPrefixes(store, owner)) {
      const name = repo.slice(owner.length, -1);
      if (isValidSegment(name)) yield `${ownerName}/${name}`;
    }
  }
}
