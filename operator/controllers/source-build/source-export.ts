// A commit's source for a build: the repository brought into a local bare copy from the bucket (only the packs
// published since the last build of it are fetched), the commit's root directory archived with `git archive`,
// and the archive put in the artifact bucket, where the build's sandbox fetches it through a presigned URL.
// The archive goes through a temporary file (archive-file.ts), never whole through memory.
import { createReadStream } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { syncBareRepo } from '../../../src/git/bare-repo.ts';
import { GitCommandError, MAX_GIT_ALLOCATION, runGit } from '../../../src/git/run-git.ts';
import { KeyedMutex } from '../../../src/collections/keyed-mutex.ts';
import type { ObjectStore } from '../../../src/object-store/object-store.ts';
import type { RepoStore } from '../../../src/repo-store/repo-store.ts';
import { parseRepoPath } from '../../../src/repo-store/repo-path.ts';
import { packBytes } from '../../../src/repo-store/state.ts';
import { buildObjectsPrefix } from '../../../src/platform/source-builds/build-log.ts';
import { ArchiveTooLargeError, gitArchiveToFile } from './archive-file.ts';
import { printable } from './printable.ts';

/** In a repository's copy, the incarnation (`repoId`) the last sync that finished brought it to. */
const SYNCED_FILE = 'cloudwright-repo-id';

/** Most bytes a commit's source archive may take; a larger one fails the build (SourceUnavailable). */
export const MAX_SOURCE_ARCHIVE_BYTES = 512 * 1024 * 1024;

/**
 * What the operator's work directory holds for sources: a repository's copy is made of its packs in the bucket, so a
 * larger repository is refused before anything is fetched, and the copies kept between builds are bounded together.
 */
export interface SourceCopyLimits {
  /** The largest repository (its packs' bytes) built; a larger one fails its builds SourceUnavailable (CW_BUILD_MAX_REPOSITORY). */
  readonly maxRepositoryBytes: number;
  /** Bytes of copies kept between builds; past it the least recently built are removed (CW_BUILD_REPOSITORY_CACHE). */
  readonly cacheBytes: number;
}

export const DEFAULT_SOURCE_COPY_LIMITS: SourceCopyLimits = { maxRepositoryBytes: 1024 ** 3, cacheBytes: 1024 ** 3 };

/** The source cannot be had: the commit is gone (a force-push and a collection), or the root directory is not in it. */
export class SourceUnavailableError extends Error {
  override readonly name = 'SourceUnavailableError';
}

export interface ExportedSource {
  /** Where the gzipped tar is, in the artifact bucket. */
  readonly key: string;
  readonly commitMessage: string;
  readonly author: string;
}

export const sourceKey = (namespace: string, build: string) => `${buildObjectsPrefix(namespace, build)}source.tar.gz`;
export const outputKey = (namespace: string, build: string) => `${buildObjectsPrefix(namespace, build)}output.tar`;

export class SourceExporter {
  readonly #repos: RepoStore;
  readonly #artifacts: ObjectStore;
  readonly #workDir: string;
  readonly #limits: SourceCopyLimits;
  /** One export of a repository's copy at a time: its sync, its archive, or its removal. */
  readonly #exports = new KeyedMutex();
  /** Each copy's bytes, least recently built first. */
  readonly #copies = new Map<string, number>();
  /** Repositories with an export waiting or under way: their copies are never removed to make room. */
  readonly #inUse = new Map<string, number>();
  /** What an earlier process left (copies of unknown size, archives an OOM kill cut short), removed before the first export. */
  #leftovers: Promise<void> | undefined;

  constructor(options: { repos: RepoStore; artifacts: ObjectStore; workDir: string; limits?: SourceCopyLimits }) {
    this.#repos = options.repos;
    this.#artifacts = options.artifacts;
    this.#workDir = options.workDir;
    this.#limits = options.limits ?? DEFAULT_SOURCE_COPY_LIMITS;
  }

  /**
   * Archives `path` of `commit` (the whole tree when absent) into the bucket at `to.key`: gzipped for a builder to
   * fetch, or a plain tar that is the build's output itself (a source without a build command). `repoId`: the
   * incarnation the project's Repository holds; another one in the bucket is refused.
   */
  async export(repo: string, repoId: string | undefined, commit: string, path: string | undefined, to: { key: string; format: 'tar' | 'tar.gz' }): Promise<ExportedSource> {
    this.#inUse.set(repo, (this.#inUse.get(repo) ?? 0) + 1);
    try {
      // Not fatal: what cannot be removed is written over, copy by copy, as before.
      await (this.#leftovers ??= rm(this.#workDir, { recursive: true, force: true }).catch(() => undefined));
      return await this.#exports.run(repo, () => this.#export(repo, repoId, commit, path, to));
    } finally {
      const left = (this.#inUse.get(repo) ?? 1) - 1;
      if (left > 0) this.#inUse.set(repo, left);
      else this.#inUse.delete(repo);
      await this.#makeRoom();
    }
  }

  #copyDir(repo: string): string {
    const repoPath = parseRepoPath(repo);
    return join(this.#workDir, 'repos', repoPath.owner, `${repoPath.name}.git`);
  }

  async #export(repo: string, repoId: string | undefined, commit: string, path: string | undefined, to: { key: string; format: 'tar' | 'tar.gz' }): Promise<ExportedSource> {
    const dir = this.#copyDir(repo);
    const head = await this.#repos.readHead(repo, { fresh: true });
    if (head.repoId !== repoId) throw new SourceUnavailableError(`the repository ${repo} in the bucket is not the one this project's Repository holds`);
    // A copy is the repository whole (every pack), in the operator's work directory, which every project's builds
    // share: one too large for it is refused before anything is fetched (review-162 F2).
    const bytes = packBytes(head.packs);
    if (bytes > this.#limits.maxRepositoryBytes) {
      throw new SourceUnavailableError(`the repository is ${size(bytes)}; push to deploy builds repositories of at most ${size(this.#limits.maxRepositoryBytes)}`);
    }
    // The copy counts once a sync of this incarnation has finished in it (as cw-git's cache does): one whose first
    // sync an operator's kill cut short (`git init` leaves HEAD without objects/, or a HEAD.lock) is made again,
    // rather than failing every build of the repository on this operator for as long as its directory lasts.
    const marker = join(dir, SYNCED_FILE);
    const synced = await readFile(marker, 'utf8').catch(() => undefined);
    if (synced !== head.repoId) await rm(dir, { recursive: true, force: true });
    this.#copies.delete(repo);
    this.#copies.set(repo, bytes);
    await syncBareRepo({ repos: this.#repos, repo, head, state: head, dir });
    if (synced !== head.repoId) await writeFile(marker, head.repoId);
    const missingCommit = `commit ${commit} is not in the repository (force-pushed away?)`;
    const describe = await runGit(['-C', dir, 'log', '-1', '--format=%an <%ae>%x00%s', commit]).catch((err: unknown) => Promise.reject(sourceError(err, missingCommit)));
    const [author = '', subject = ''] = describe.stdout.toString('utf8').trimEnd().split('\0');
    const tree = path ? `${commit}:${path}` : commit;
    await mkdir(this.#workDir, { recursive: true });
    const work = await mkdtemp(join(this.#workDir, 'archive-'));
    try {
      const file = join(work, `source.${to.format}`);
      const length = await gitArchiveToFile(dir, tree, to.format, file, MAX_SOURCE_ARCHIVE_BYTES).catch((err: unknown) =>
        Promise.reject(sourceError(err, `${path ?? ''} is not a directory in commit ${commit.slice(0, 12)}`)),
      );
      await this.#artifacts.put(to.key, { length, open: () => createReadStream(file) }, { contentType: to.format === 'tar' ? 'application/x-tar' : 'application/gzip' });
    } finally {
      await rm(work, { recursive: true, force: true });
    }
    // Git allows a tab or an escape in both, which the status refuses: a refused status write at the build's start was
    // taken for the platform's failure and retried for a day (review-162 F7).
    return { key: to.key, commitMessage: printable(subject).slice(0, 256), author: printable(author).slice(0, 256) };
  }

  /**
   * Removes the least recently built copies no export is using until the rest fit the cache's bytes. The total is
   * counted again before each removal: two exports ending together trim at once, and each removal awaits.
   */
  async #makeRoom(): Promise<void> {
    for (const repo of Array.from(this.#copies.keys())) {
      if (this.#copiesBytes() <= this.#limits.cacheBytes) return;
      if (this.#inUse.has(repo) || !this.#copies.delete(repo)) continue;
      // Under the repository's turn: an export of it that starts meanwhile waits, then makes its copy again.
      await this.#exports.run(repo, () => rm(this.#copyDir(repo), { recursive: true, force: true }));
    }
  }

  #copiesBytes(): number {
    let total = 0;
    for (const bytes of this.#copies.values()) total += bytes;
    return total;
  }
}

const size = (bytes: number) => (bytes < 1024 ** 2 ? `${bytes} bytes` : `${Math.round(bytes / 1024 ** 2)} MiB`);

/** A failure to read the source, as the build should fail: SourceUnavailable when it is the source's, else as it was. */
export function sourceError(err: unknown, missing: string): unknown {
  // Over the cap is the source's size, not a passing failure: retrying would archive it again and again.
  if (err instanceof ArchiveTooLargeError) return new SourceUnavailableError(`${err.message} (${MAX_SOURCE_ARCHIVE_BYTES / 1024 / 1024} MiB at most)`);
  if (err instanceof GitCommandError && /not a valid object name|bad revision|unknown revision|not a tree object|bad object/i.test(err.message + err.stderr)) {
    return new SourceUnavailableError(missing);
  }
  // A file git would have to hold past GIT_ALLOC_LIMIT (one near the limit, or an export-subst expansion): the commit
  // is never archived, so it is the source's failure, not one to retry for a day as the platform's (review-162 F4).
  if (err instanceof GitCommandError && /attempting to allocate \d+ over limit/.test(err.stderr)) {
    return new SourceUnavailableError(`a file of the commit is larger than git may hold in memory to archive it (git's allocation limit, ${MAX_GIT_ALLOCATION})`);
  }
  return err;
}
