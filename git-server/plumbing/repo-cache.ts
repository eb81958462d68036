// Each instance keeps a bare copy of the repositories it serves under `cache.dir`: git's own upload-pack,
// index-pack and rev-list run over it. The bucket is the repository; this copy is only ever brought up to the
// bucket's head (never ahead of it), and can be deleted at any time.
import { readdir, readFile, rm, stat, utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { RepoHead, RepoStore } from '../../src/repo-store/index.ts';
import { parseRepoPath } from '../../src/repo-store/index.ts';
import { KeyedMutex } from '../../src/collections/keyed-mutex.ts';
import { syncBareRepo, writeHead } from '../../src/git/bare-repo.ts';
import { objectReaders } from './read/object-readers.ts';

export interface SyncedRepo {
  /** The bare repository directory, holding exactly `head`'s refs and packs. */
  readonly dir: string;
  readonly head: RepoHead;
}

/** Marks which incarnation of a repository a cached copy belongs to (a deleted and re-created one differs). */
const INCARNATION_FILE = 'cloudwright-repo-id';

export class RepoCache {
  readonly root: string;
  readonly #repos: RepoStore;
  readonly #lock = new KeyedMutex();
  /** What each cached copy was last brought to. */
  readonly #synced = new Map<string, { readonly repoId: string; readonly seq: number; readonly headRef: string }>();
  /** When each repository was last served from here (ms since the epoch), for eviction. */
  readonly #lastUsed = new Map<string, number>();
  /** Requests using each copy right now (an upload-pack streaming from it, a push indexing against it). */
  readonly #held = new Map<string, number>();

  constructor(options: { repos: RepoStore; dir: string }) {
    this.#repos = options.repos;
    this.root = options.dir;
  }

  /** Where `owner/name` is cached. */
  dirOf(repo: string): string {
    const path = parseRepoPath(repo);
    return join(this.root, 'repos', path.owner, `${path.name}.git`);
  }

  /** Where pushes quarantine their objects: on the cache's file system, so accepted packs move by rename. */
  get tmpDir(): string {
    return join(this.root, 'tmp');
  }

  /**
   * Revalidates the head against the bucket (one conditional GET, usually 304; none within
   * `wal.freshness_ttl` unless `fresh`) and brings the cached copy up to it. Throws `RepoNotFoundError` for a
   * repository the bucket does not have.
   */
  async sync(repo: string, options: { fresh?: boolean } = {}): Promise<SyncedRepo> {
    let head = await this.#repos.readHead(repo, options);
    const dir = this.dirOf(repo);
    this.#lastUsed.set(repo, Date.now());
    if (this.#isAtOrPast(repo, head) && !this.#headMoved(repo, head)) return { dir, head };
    return this.#lock.run(repo, async () => {
      // Another request may have brought the copy here, or past here, while this one waited: never move it
      // back (and never pay a second read of the head to find out).
      if (this.#isAtOrPast(repo, head)) return this.#followHead(repo, dir, head);
      const marker = join(dir, INCARNATION_FILE);
      const cachedIncarnation = await readFile(marker, 'utf8').catch(() => undefined);
      if (cachedIncarnation !== undefined && cachedIncarnation !== head.repoId) {
        // The copy is of another incarnation: before replacing it, make sure ours is the current one (a
        // request that read the head before a delete-and-create must not bring the deleted one back).
        head = await this.#repos.readHead(repo, { fresh: true });
        if (this.#isAtOrPast(repo, head)) return this.#followHead(repo, dir, head);
      }
      if (cachedIncarnation !== head.repoId) await rm(dir, { recursive: true, force: true });
      await syncBareRepo({ repos: this.#repos, repo, head, state: head, dir });
      if (cachedIncarnation !== head.repoId) {
        await writeFile(marker, head.repoId);
        // A reader started in the deleted copy (or while this one was written) must not answer for this one.
        objectReaders.close(dir);
      }
      this.#synced.set(repo, { repoId: head.repoId, seq: head.seq, headRef: head.headRef });
      // Eviction after a restart picks the least recently used copies by this file's time.
      const now = new Date();
      await utimes(marker, now, now).catch(() => {});
      return { dir, head };
    });
  }

  /** Every cached copy on disk with when it was last used (this process's memory, else the copy's mtime). */
  async cached(): Promise<{ repo: string; lastUsedMs: number }[]> {
    const root = join(this.root, 'repos');
    const owners = await readdir(root).catch(() => [] as string[]);
    const found: { repo: string; lastUsedMs: number }[] = [];
    for (const owner of owners) {
      for (const entry of await readdir(join(root, owner)).catch(() => [] as string[])) {
        if (!entry.endsWith('.git')) continue;
        const repo = `${owner}/${entry.slice(0, -4)}`;
        const remembered = this.#lastUsed.get(repo);
        const lastUsedMs =
          remembered ??
          (await stat(join(root, owner, entry, INCARNATION_FILE)).then(
            (s) => s.mtimeMs,
            () => 0,
          ));
        found.push({ repo, lastUsedMs });
      }
    }
    return found;
  }

  /** Marks the copy in use until the returned function is called; eviction leaves held copies alone. */
  hold(repo: string): () => void {
    this.#held.set(repo, (this.#held.get(repo) ?? 0) + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const left = (this.#held.get(repo) ?? 1) - 1;
      if (left > 0) this.#held.set(repo, left);
      else this.#held.delete(repo);
    };
  }

  /** Drops the copy unless a request is using it; answers whether it did. */
  evictIfIdle(repo: string): Promise<boolean> {
    return this.#lock.run(repo, async () => {
      if (this.#held.has(repo)) return false;
      await this.#drop(repo);
      return true;
    });
  }

  /** Drops the cached copy (the repository was deleted). */
  evict(repo: string): Promise<void> {
    return this.#lock.run(repo, () => this.#drop(repo));
  }

  /** Runs `task` while no sync of `repo` runs (a push moving its accepted pack into the copy). */
  exclusive<T>(repo: string, task: () => Promise<T>): Promise<T> {
    return this.#lock.run(repo, task);
  }

  /** Whether HEAD was retargeted at the seq the copy is at (a retarget writes no log entry: the seq stays). */
  #headMoved(repo: string, head: RepoHead): boolean {
    const synced = this.#synced.get(repo);
    return synced !== undefined && synced.seq === head.seq && synced.headRef !== head.headRef;
  }

  /** The copy is at `head`'s seq or past it: it only has to follow a retarget of HEAD. Runs under the lock. */
  async #followHead(repo: string, dir: string, head: RepoHead): Promise<SyncedRepo> {
    if (this.#headMoved(repo, head)) {
      await writeHead(dir, head.headRef);
      this.#synced.set(repo, { repoId: head.repoId, seq: head.seq, headRef: head.headRef });
    }
    return { dir, head };
  }

  /** Whether the copy is of `head`'s incarnation, at its seq or later. */
  #isAtOrPast(repo: string, head: { repoId: string; seq: number }): boolean {
    const synced = this.#synced.get(repo);
    return synced !== undefined && synced.repoId === head.repoId && synced.seq >= head.seq;
  }

  async #drop(repo: string): Promise<void> {
    this.#synced.delete(repo);
    this.#lastUsed.delete(repo);
    objectReaders.close(this.dirOf(repo));
    await rm(this.dirOf(repo), { recursive: true, force: true });
    // One a request started meanwhile, in the copy being deleted.
    objectReaders.close(this.dirOf(repo));
  }
}
