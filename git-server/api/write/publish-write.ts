// The one way a JSON API write reaches the repository: new objects are written into a quarantine beside the
// cached copy (git's own plumbing: hash-object, mktree, commit-tree, merge-tree), packed, and published with the
// ref updates through the write-ahead log as one `ref_update` entry, exactly as a push publishes (same seq, same
// durability, same CAS on each ref's old value).
import type { RefUpdate } from '../../../src/repo-store/refs.ts';
import type { PublishResult } from '../../../src/repo-store/publish.ts';
import type { RepoApiDependencies } from '../dependencies.ts';

/** What a write asks: which repository, who, and how to build its objects and ref updates. */
export interface WriteRequest {
  /** `owner/name`. */
  readonly repo: string;
  /** The token's principal (`sub`), recorded as the entry's pusher. */
  readonly principal: string;
  /** The request id (`x-request-id`), recorded in the entry. */
  readonly requestId: string;
  /**
   * Builds the write: runs git with `env` (GIT_DIR = the cached copy, objects written into the quarantine, the
   * copy's objects readable as alternates) and answers the ref updates, each with the old value it expects
   * (the zero oid: must not exist; for a force update, the current value read from the synced head).
   */
  readonly build: (context: { readonly dir: string; readonly env: Readonly<Record<string, string>>; readonly head: import('../../../src/repo-store/index.ts').RepoHead }) => Promise<readonly RefUpdate[]>;
}

/**
 * Syncs the cached copy, runs `request.build` in a quarantine, packs whatever objects it wrote, and publishes
 * pack and ref updates atomically (all or none). Answers the publish result: `published` with the seq,
 * `rejected` when an update's old value was stale (the route answers 409 with the current oid), `unchanged`.
 */
export type PublishWrite = (deps: RepoApiDependencies, request: WriteRequest) => Promise<PublishResult>;
