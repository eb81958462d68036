// The one way a JSON API write reaches the repository: new objects are written into a quarantine beside the
// cached copy (git's own plumbing: hash-object, mktree, commit-tree, merge-tree), packed, and published with the
// ref updates through the write-ahead log as one `ref_update` entry, exactly as a push publishes (same seq, same
// durability, same CAS on each ref's old value).
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { Quarantine, type IndexedPack } from '../../plumbing/quarantine.ts';
import type { QuotaReservation } from '../../plumbing/storage-quota.ts';
import { applyLocally, packUpload } from '../../plumbing/receive-pack/receive-pack.ts';
import { GitCommandError, runGit } from '../../../src/git/run-git.ts';
import { InvalidChangeError } from '../../plumbing/write/changes.ts';
import type { RefUpdate } from '../../../src/repo-store/refs.ts';
import type { PublishResult } from '../../../src/repo-store/publish.ts';
import { parseRepoPath } from '../../../src/repo-store/index.ts';
import type { RepoApiDependencies } from '../dependencies.ts';
import { RefLimitError } from './write-errors.ts';
import { publishing } from './write-turns.ts';

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
  readonly build: (context: {
    readonly dir: string;
    readonly env: Readonly<Record<string, string>>;
    readonly head: import('../../../src/repo-store/index.ts').RepoHead;
    /** The request's: aborts when its client leaves (give it to the git processes the build runs). */
    readonly signal?: AbortSignal;
  }) => Promise<readonly RefUpdate[]>;
  /**
   * Aborts when the request's client leaves or its write deadline passes (write-turns.ts): the build is given it, and
   * once it aborted nothing more is packed or published (nobody is there to hear whether the write landed, or the
   * client is told nothing was written, and a retry meets the same head).
   */
  readonly signal?: AbortSignal;
  /** Publish only if the repository has no refs by then (an import or an initialize): `PublishRequest.onlyIfNoRefs`. */
  readonly onlyIfNoRefs?: boolean;
}

/**
 * Syncs the cached copy, runs `request.build` in a quarantine, packs whatever objects it wrote, and publishes
 * pack and ref updates atomically (all or none). Answers the publish result: `published` with the seq,
 * `rejected` when an update's old value was stale (the route answers 409 with the current oid), `unchanged`.
 * Throws `RefLimitError` (409 `ref_limit_reached`) when the write was refused only because its creates would pass
 * the repository's ref limit: one answer for every route that creates refs.
 */
export type PublishWrite = (deps: RepoApiDependencies, request: WriteRequest) => Promise<PublishResult>;

/** As a push: the head `cache.sync` read when the write began is recent enough to publish from. */
const HEAD_MAX_AGE_MS = 30_000;
/** A bound on what one API write may pack (the routes bound their inputs far below it). */
const MAX_WRITE_PACK_BYTES = 1024 ** 3;

export const publishWrite: PublishWrite = async (deps, request) => {
  const repo = parseRepoPath(request.repo).full;
  const release = deps.cache.hold(repo);
  let quarantine: Quarantine | undefined;
  let reservation: QuotaReservation | undefined;
  try {
    // Fresh whatever wal.freshness_ttl says: a force update's "current value" and the objects built on it must
    // be the bucket's, not a copy a few seconds old.
    const { dir, head } = await deps.cache.sync(repo, { fresh: true });
    quarantine = await Quarantine.create(deps.cache.tmpDir, dir);
    const env = quarantine.env;
    const { signal } = request;
    const refUpdates = await request.build({ dir, env, head, ...(signal ? { signal } : {}) });
    if (refUpdates.length === 0) return { outcome: 'unchanged', head, refs: [] };
    signal?.throwIfAborted();
    const pack = await packWritten(quarantine, signal);
    signal?.throwIfAborted();
    // Throws StorageQuotaError (507) before the pack reaches the bucket.
    reservation = pack ? await deps.quota?.reserve(parseRepoPath(repo), pack.packBytes + pack.idxBytes) : undefined;
    // The last point where the write stops whole. From here the publish runs to its answer: its compare-and-swap
    // lands or not, and the client hears which (its deadline no longer cuts it: a write answered 503 published nothing).
    signal?.throwIfAborted();
    publishing(signal);
    const result = await deps.repos.publish(repo, {
      kind: 'ref_update',
      refUpdates,
      pack: pack ? packUpload(pack) : undefined,
      pusher: request.principal,
      requestId: request.requestId,
      atomic: true,
      headMaxAgeMs: HEAD_MAX_AGE_MS,
      ...(request.onlyIfNoRefs ? { onlyIfNoRefs: true } : {}),
    });
    if (pastRefLimit(result)) throw new RefLimitError(repo, deps.repos.maxRefs);
    if (result.outcome === 'published') reservation?.published();
    if (result.outcome === 'published' && pack) await applyLocally(deps.cache, repo, quarantine, pack, (error) => deps.onLocalApplyFailed?.(repo, error));
    return result;
  } finally {
    reservation?.release();
    await quarantine?.dispose();
    release();
  }
};

/**
 * Whether the publish was refused for the ref limit alone: a stale old value, a name conflict or a repository that is
 * no longer pristine is the route's own answer (its 409 names the ref), and a write retried on the new head may fit.
 */
function pastRefLimit(result: PublishResult): boolean {
  if (result.outcome !== 'rejected') return false;
  const reasons = new Set(result.refs.flatMap((r) => (r.status === 'rejected' ? [r.reason] : [])));
  reasons.delete('atomic push failure');
  return reasons.size === 1 && reasons.has('too many refs');
}

/**
 * Packs the objects `build` wrote into the quarantine, loose or in packs (objects copied from another
 * repository, git-server/plumbing/write/copy-objects.ts), as one pack indexed as a push's pack is; none: undefined.
 */
async function packWritten(quarantine: Quarantine, signal: AbortSignal | undefined): Promise<IndexedPack | undefined> {
  const oids = [...new Set([...(await looseObjects(quarantine.objectsDir)), ...(await packedObjects(quarantine))])].sort();
  if (oids.length === 0) return undefined;
  const out = new PassThrough();
  const packed = runGit(['pack-objects', '--stdout', '--quiet'], {
    env: quarantine.env,
    stdin: `${oids.join('\n')}\n`,
    stdout: out,
    maxStdoutBytes: MAX_WRITE_PACK_BYTES,
    ...(signal ? { signal } : {}),
  }).then(
    () => out.end(),
    (error: unknown) => {
      out.destroy(error as Error);
      throw error;
    },
  );
  // Both settled before judging: when index-pack refuses the objects, pack-objects writing to it fails too, and
  // either failure may come first; index-pack's says why. A pack index-pack took is whole (its header counts the
  // objects, its trailer checks them): index-pack may have exited before pack-objects closed its output, whose
  // write then failed for nothing (seen under load: a 500 for a write that had its pack).
  const [indexed] = await Promise.allSettled([quarantine.indexPack(out, MAX_WRITE_PACK_BYTES), packed]);
  if (indexed.status === 'rejected') throw refusedByFsck(indexed.reason) ?? indexed.reason;
  return indexed.value;
}

/**
 * The 400 for objects git's fsck refuses (a `.gitmodules` whose URL is an option, a path git takes for `.git`): the
 * request's content, not a fault of the service. git's own first complaint names what it found.
 */
function refusedByFsck(error: unknown): InvalidChangeError | undefined {
  if (!(error instanceof GitCommandError)) return undefined;
  // `error: object <oid>: <fsck message id, camelCase>: <what>`, e.g. `gitmodulesUrl: disallowed submodule url: …`.
  const complaint = /^error: object [0-9a-f]+: ([a-z]+[A-Z][A-Za-z]*: .*)$/m.exec(error.stderr)?.[1];
  if (complaint === undefined) return undefined;
  return new InvalidChangeError('invalid_change', `git's object check refuses what this write would store: ${complaint.slice(0, 200)}`);
}

/** The oids of the loose objects under `objectsDir` (`xx/yyyy…`). */
async function looseObjects(objectsDir: string): Promise<string[]> {
  const oids: string[] = [];
  for (const fanout of await readdir(objectsDir)) {
    if (!/^[0-9a-f]{2}$/.test(fanout)) continue;
    for (const rest of await readdir(join(objectsDir, fanout))) if (/^[0-9a-f]{38}(?:[0-9a-f]{24})?$/.test(rest)) oids.push(fanout + rest);
  }
  return oids.sort();
}

/** The oids in the packs under the quarantine's `pack/` directory (`git show-index` of each idx). */
async function packedObjects(quarantine: Quarantine): Promise<string[]> {
  const packDir = join(quarantine.objectsDir, 'pack');
  const oids: string[] = [];
  for (const name of await readdir(packDir)) {
    if (!name.endsWith('.idx')) continue;
    const { stdout } = await runGit(['show-index'], { env: quarantine.env, stdin: await readFile(join(packDir, name)), maxStdoutBytes: MAX_WRITE_PACK_BYTES });
    for (const line of stdout.toString().split('\n')) {
      const oid = line.split(' ')[1];
      if (oid) oids.push(oid);
    }
  }
  return oids;
}
