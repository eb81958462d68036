import { randomBytes } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdir, readdir, readFile, rename, rm, statfs, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { readArtifact, type ArtifactSink, type ModuleType, type ParseArtifactOptions } from '../../src/app-artifacts/artifact.ts';
import type { AssetServiceConfig } from '../../src/app-artifacts/build-config.ts';
import { ArtifactError, ArtifactTooLargeError, BuildQuotaError, InsufficientStorageError } from '../../src/app-artifacts/errors.ts';
import type { ArtifactSource, BuildRef } from './ports.ts';
import { Semaphore } from '../../src/collections/semaphore.ts';

/** What a file or a directory takes on disk at least: a block of the file system (4 KiB on ext4 and xfs) and an inode. */
export const DISK_BLOCK_BYTES = 4096;

/**
 * `bytes` of a file as the disk holds them: whole blocks, at least one. A build's files are counted so against the
 * store's capacity and its project's quota, not by their bytes: 20,000 one-byte files are 20 KB of content and some
 * 80 MB of blocks, and a replica's data directory filled past its bound gets the pod evicted with every tenant's apps
 * (review-165 F3).
 */
const onDisk = (bytes: number): number => Math.max(1, Math.ceil(bytes / DISK_BLOCK_BYTES)) * DISK_BLOCK_BYTES;

/** A build unpacked on disk, ready for a workerd config. */
export interface PreparedBuild {
  readonly buildId: string;
  readonly digest: string;
  /** The modules and assets together, in bytes. */
  readonly unpackedBytes: number;
  /** What the store counted it to take on disk (`onDisk`: its files in whole blocks, its directories a block each). */
  readonly diskBytes?: number;
  /** The entry point first; `file` is absolute. */
  readonly modules: readonly { readonly name: string; readonly type: ModuleType; readonly file: string }[];
  /** Absolute; absent when the build has no assets. */
  readonly assetsDir?: string;
  readonly assetConfig: AssetServiceConfig;
  readonly compatibilityDate: string;
  readonly compatibilityFlags: readonly string[];
}

export interface BuildStoreOptions {
  readonly parse?: ParseArtifactOptions;
  /** Builds fetched and unpacked at once; the others wait their turn (default {@link DEFAULT_PREPARE_CONCURRENCY}). */
  readonly concurrency?: number;
  /**
   * Whom a project's preparations take turns as (default: each project its own): the waiting builds take turns by
   * account, so one tenant's many builds (thousands of files each, seconds to unpack) hold back another tenant's first
   * by one turn, not by their whole queue (review-165 F4).
   */
  readonly accountOf?: (project: string) => string;
  /**
   * Bytes the unpacked builds may take together (default: no bound). A build that would take them past it is
   * refused with `InsufficientStorageError`, as is any build while the file system has less than
   * {@link MIN_FREE_BYTES} available.
   */
  readonly capacityBytes?: number;
  /** Bytes one project's unpacked builds may take (default: no bound); past it, `BuildQuotaError`. */
  readonly projectQuotaBytes?: number;
}

/** Two at once: unpacking is disk and decompression work, and each holds a decoder window (8 MiB at most). */
export const DEFAULT_PREPARE_CONCURRENCY = 2;
/** Builds are refused while the data directory's file system has less than this free (workerd's configs and sockets live there too). */
export const MIN_FREE_BYTES = 64 * 1024 * 1024;

const LABEL = /^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/;
const MANIFEST = 'build.json';

/**
 * Where a build of an app is unpacked: `<project>.<appId>.<buildId>`, unambiguous as none of them holds a
 * dot. Per app, not per build id: the same id in another project (named by a RuntimeApp applied with kubectl,
 * say) must fetch and check that app's own artifact, never be handed another tenant's unpacked build.
 */
export function buildKey(ref: BuildRef): string {
  return `${ref.project}.${ref.appId}.${ref.buildId}`;
}

/**
 * Unpacks builds under `root/<buildKey>/` (modules in `modules/`, assets in `assets/`), fetching each
 * artifact once through the `ArtifactSource` and validating it again as it streams onto disk (the store is
 * not trusted more than the upload was); nothing is held in memory but a chunk and the decoder's window. A
 * build is written to a temporary directory and renamed into place once it is whole and valid, so a crash
 * never leaves half a build that looks complete; a finished build is reused across restarts.
 *
 * It keeps count of what its builds take on disk, per build and as they are written, and refuses a build
 * whose next file would take them past the store's capacity (`InsufficientStorageError`) or its project's
 * builds past the project quota (`BuildQuotaError`); the other builds of the same app do not count against
 * its project, as they go once the new one serves. A build refused so is not fetched again while the room it
 * needed (as far as it was read) is still not there.
 */
export class BuildStore {
  readonly #root: string;
  readonly #artifacts: ArtifactSource;
  readonly #options: BuildStoreOptions;
  readonly #builds = new Map<string, Promise<PreparedBuild>>();
  /** Build key → bytes it takes on disk (counted as its files are written). */
  readonly #sizes = new Map<string, number>();
  /** Build key → bytes a build refused for want of room needed at least: it is not fetched again until they fit. */
  readonly #needs = new Map<string, number>();
  /** Build key → the deletion of its directory under way: a build asked for again waits for it, then unpacks anew. */
  readonly #deleting = new Map<string, Promise<void>>();
  readonly #slots: Semaphore;

  constructor(root: string, artifacts: ArtifactSource, options: BuildStoreOptions = {}) {
    this.#root = root;
    this.#artifacts = artifacts;
    this.#options = options;
    this.#slots = new Semaphore(options.concurrency ?? DEFAULT_PREPARE_CONCURRENCY);
  }

  /** Builds waiting for a preparation slot. */
  get waitingToPrepare(): number {
    return this.#slots.waiting;
  }

  /** Bytes the builds this store knows of take on disk. */
  get usedBytes(): number {
    let total = 0;
    for (const size of this.#sizes.values()) total += size;
    return total;
  }

  /** The build on disk, fetching and unpacking it on first use. Concurrent calls share one fetch. */
  prepare(ref: BuildRef): Promise<PreparedBuild> {
    for (const [what, value] of [
      ['project', ref.project],
      ['app id', ref.appId],
      ['build id', ref.buildId],
    ]) {
      if (!LABEL.test(value ?? '')) return Promise.reject(new Error(`invalid ${what} ${JSON.stringify(value)}`));
    }
    const key = buildKey(ref);
    let build = this.#builds.get(key);
    if (!build) {
      build = this.#load(ref, key);
      this.#builds.set(key, build);
      // A fetch that failed, or found no room, is tried again next time; an invalid artifact stays invalid.
      build.catch((err: unknown) => {
        if (!(err instanceof ArtifactError || err instanceof ArtifactTooLargeError)) this.#builds.delete(key);
      });
    }
    return build;
  }

  /**
   * Deletes every build whose {@link buildKey} is not in `keep`, on disk and in memory. A `prepare` under way
   * for a build not in `keep` is not stopped: it finishes into a directory the next call deletes. A build asked for
   * again while the directory listing is read is not deleted; one asked for once its deletion began waits for it and
   * unpacks anew (a first request for an app just let go), never reading a manifest whose files are going.
   */
  async retain(keep: ReadonlySet<string>): Promise<void> {
    for (const id of this.#builds.keys()) if (!keep.has(id)) this.#builds.delete(id);
    for (const id of this.#sizes.keys()) if (!keep.has(id)) this.#sizes.delete(id);
    for (const id of this.#needs.keys()) if (!keep.has(id)) this.#needs.delete(id);
    const entries = await readdir(this.#root).catch(() => []);
    const unused = entries.filter((name) => !keep.has(name) && !name.startsWith('.tmp-') && !this.#builds.has(name));
    await Promise.all(
      unused.map((name) => {
        const deleted: Promise<void> = rm(join(this.#root, name), { recursive: true, force: true }).finally(() => {
          if (this.#deleting.get(name) === deleted) this.#deleting.delete(name);
        });
        this.#deleting.set(name, deleted);
        return deleted;
      }),
    );
  }

  async #load(ref: BuildRef, key: string): Promise<PreparedBuild> {
    await this.#deleting.get(key)?.catch(() => undefined);
    const dir = join(this.#root, key);
    const existing = await readFile(join(dir, MANIFEST), 'utf8').then(
      (text) => JSON.parse(text) as PreparedBuild,
      () => undefined,
    );
    if (existing) {
      this.#sizes.set(key, existing.diskBytes ?? existing.unpackedBytes ?? 0);
      return existing;
    }
    const release = await this.#slots.acquire(this.#options.accountOf?.(ref.project) ?? ref.project);
    const tmp = join(this.#root, `.tmp-${key}-${randomBytes(4).toString('hex')}`);
    try {
      await this.#checkFreeSpace(ref);
      const need = this.#needs.get(key);
      if (need !== undefined) this.#reserve(ref, key, need); // still no room: refused again without a fetch
      this.#sizes.set(key, 0);
      const artifact = await readArtifact(await this.#artifacts.fetch(ref), {
        ...this.#options.parse,
        sink: this.#writer(tmp, (directories) => this.#reserve(ref, key, directories * DISK_BLOCK_BYTES)),
        budget: { spend: (bytes) => this.#reserve(ref, key, onDisk(bytes)) },
      });
      const build: PreparedBuild = {
        buildId: ref.buildId,
        digest: artifact.digest,
        unpackedBytes: artifact.unpackedBytes,
        diskBytes: this.#sizes.get(key) ?? 0,
        modules: artifact.modules.map((m) => ({ name: m.name, type: m.type, file: join(dir, 'modules', m.name) })),
        ...(artifact.assets.length > 0 ? { assetsDir: join(dir, 'assets') } : {}),
        assetConfig: artifact.assetConfig,
        compatibilityDate: artifact.compatibilityDate,
        compatibilityFlags: artifact.compatibilityFlags,
      };
      await writeFile(join(tmp, MANIFEST), JSON.stringify(build));
      await rm(dir, { recursive: true, force: true });
      await rename(tmp, dir);
      this.#needs.delete(key);
      return build;
    } catch (err) {
      this.#sizes.delete(key);
      if (err instanceof InsufficientStorageError || err instanceof BuildQuotaError) this.#needs.set(key, Math.max(this.#needs.get(key) ?? 0, err.needed));
      throw err;
    } finally {
      await rm(tmp, { recursive: true, force: true });
      release();
    }
  }

  /** Writes each file under `tmp` (`modules/…`, `assets/…`) as it streams; `directories` is told of each it makes first. */
  #writer(tmp: string, directories: (count: number) => void): ArtifactSink {
    const made = new Set<string>();
    return {
      async file(kind, path, _size, content) {
        const file = join(tmp, kind === 'module' ? 'modules' : 'assets', path);
        let count = 0;
        for (let dir = dirname(file); dir.length > tmp.length && !made.has(dir); dir = dirname(dir)) {
          made.add(dir);
          count++;
        }
        if (count > 0) directories(count);
        await mkdir(dirname(file), { recursive: true });
        await pipeline(Readable.from(content, { objectMode: false }), createWriteStream(file, { flags: 'wx' }));
      },
    };
  }

  /** Counts `bytes` more for build `key`, or refuses them: past the store's capacity, or the project's quota. */
  #reserve(ref: BuildRef, key: string, bytes: number): void {
    const { capacityBytes, projectQuotaBytes } = this.#options;
    const mine = (this.#sizes.get(key) ?? 0) + bytes;
    if (capacityBytes !== undefined) {
      const others = this.usedBytes - (this.#sizes.get(key) ?? 0);
      if (others + mine > capacityBytes) {
        throw new InsufficientStorageError(
          ref.buildId,
          mine,
          `The runtime replica has no room for build ${ref.buildId}: the builds it serves take ${others} bytes of the ${capacityBytes} its data directory gives them, and this one takes at least ${mine} on disk.`,
        );
      }
    }
    if (projectQuotaBytes !== undefined) {
      const prefix = `${ref.project}.`;
      const sameApp = `${ref.project}.${ref.appId}.`;
      let project = 0;
      for (const [other, size] of this.#sizes) if (other !== key && other.startsWith(prefix) && !other.startsWith(sameApp)) project += size;
      if (project + mine > projectQuotaBytes) {
        throw new BuildQuotaError(
          ref.buildId,
          mine,
          `Build ${ref.buildId} takes at least ${mine} bytes on disk and the project's other apps' builds ${project}: more than the project's quota of ${projectQuotaBytes} bytes of unpacked builds.`,
        );
      }
    }
    this.#sizes.set(key, mine);
  }

  async #checkFreeSpace(ref: BuildRef): Promise<void> {
    const stats = await statfs(this.#root);
    const free = stats.bavail * stats.bsize;
    if (free < MIN_FREE_BYTES) {
      throw new InsufficientStorageError(
        ref.buildId,
        0,
        `The runtime replica has no room for build ${ref.buildId}: its data directory's file system has ${free} bytes free, less than ${MIN_FREE_BYTES}.`,
      );
    }
  }
}
