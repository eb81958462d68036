// A push's objects land in a quarantine directory next to the repository's cached copy, not in it: if the
// push fails (bad pack, missing objects, a lost race) nothing of it is ever visible. Only once the bucket has
// the pack is it moved into the cache.
import { mkdir, mkdtemp, open, readdir, rename, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { runGit } from '../../src/git/run-git.ts';
import { receiveMeter, type SpoolMeter } from './spool-budget.ts';

export interface IndexedPack {
  readonly packPath: string;
  readonly idxPath: string;
  readonly packBytes: number;
  readonly idxBytes: number;
  /** Objects in the pack; 0 when the client had nothing new to send. */
  readonly objects: number;
  /** git's name of the pack: `pack-<name>.pack`. */
  readonly name: string;
}

/** The pack was larger than allowed. */
export class PackTooLargeError extends Error {
  override readonly name = 'PackTooLargeError';
}

export class Quarantine {
  readonly objectsDir: string;
  readonly #root: string;
  readonly #repoDir: string;

  private constructor(root: string, repoDir: string) {
    this.#root = root;
    this.#repoDir = repoDir;
    this.objectsDir = join(root, 'objects');
  }

  /** A fresh quarantine under `tmpDir` (on the cache's file system, so accepted packs move by rename). */
  static async create(tmpDir: string, repoDir: string): Promise<Quarantine> {
    await mkdir(tmpDir, { recursive: true });
    const root = await mkdtemp(join(tmpDir, 'push-'));
    await mkdir(join(root, 'objects', 'pack'), { recursive: true });
    return new Quarantine(root, repoDir);
  }

  /** git sees the repository's objects plus the quarantined ones, and writes only into the quarantine. */
  get env(): Record<string, string> {
    return {
      GIT_DIR: this.#repoDir,
      GIT_OBJECT_DIRECTORY: this.objectsDir,
      GIT_ALTERNATE_OBJECT_DIRECTORIES: join(this.#repoDir, 'objects'),
      GIT_QUARANTINE_PATH: this.objectsDir,
    };
  }

  /**
   * Indexes the pack a client sends with `git index-pack --stdin --fix-thin --fsck-objects`: a thin pack gets the
   * bases it leaves out appended from the repository, so the stored pack stands alone, and every object is
   * fsck-checked (a malformed commit, tree or tag fails the push), so the repository never holds objects that make
   * others' clones fail their own checks. Not `--strict`, which also fails the whole pack for a link to an object
   * it lacks: which refs such a push may still update is the connectivity check's to say, per ref, as git does.
   */
  async indexPack(pack: Readable, maxBytes: number, signal?: AbortSignal, spool?: SpoolMeter): Promise<IndexedPack> {
    const limit = receiveMeter(maxBytes, (max) => new PackTooLargeError(`the pack is larger than ${max} bytes`), spool);
    let tooLarge: Error | undefined;
    // Only the meter's own refusals explain a failure; a "premature close" when git stopped reading (it refused the
    // pack: its fsck complaint is the error to give) does not.
    limit.on('error', (error) => {
      if (error instanceof PackTooLargeError || error.name === 'SpoolFullError') tooLarge = error;
    });
    const indexed = runGit(['index-pack', '--stdin', '--fix-thin', '--fsck-objects'], { env: this.env, stdin: pack.pipe(limit), signal }).catch((error: unknown) => {
      throw tooLarge ?? error;
    });
    pack.on('error', (error) => limit.destroy(error));
    const { stdout } = await indexed;
    const name = /^(?:pack|keep)\t([0-9a-f]+)$/m.exec(stdout.toString())?.[1];
    if (!name) throw new Error('git index-pack did not name the pack it wrote');
    const packPath = join(this.objectsDir, 'pack', `pack-${name}.pack`);
    const idxPath = join(this.objectsDir, 'pack', `pack-${name}.idx`);
    const [packStat, idxStat] = await Promise.all([stat(packPath), stat(idxPath)]);
    return { packPath, idxPath, packBytes: packStat.size, idxBytes: idxStat.size, objects: await objectCount(packPath), name };
  }

  /** Moves the accepted pack into the repository's pack directory (idx last: git looks packs up by idx). */
  async adopt(pack: IndexedPack): Promise<void> {
    const packDir = join(this.#repoDir, 'objects', 'pack');
    await rename(pack.packPath, join(packDir, `pack-${pack.name}.pack`));
    await rename(pack.idxPath, join(packDir, `pack-${pack.name}.idx`));
  }

  async dispose(): Promise<void> {
    await rm(this.#root, { recursive: true, force: true });
  }

  /** Files the quarantine holds (for tests and diagnostics). */
  async files(): Promise<string[]> {
    return readdir(this.#root, { recursive: true });
  }
}

/** The object count from a pack's 12-byte header (`PACK`, version, count). */
async function objectCount(packPath: string): Promise<number> {
  const file = await open(packPath, 'r');
  try {
    const header = Buffer.alloc(12);
    await file.read(header, 0, 12, 0);
    if (header.subarray(0, 4).toString('latin1') !== 'PACK') throw new Error('the indexed pack has no PACK header');
    return header.readUInt32BE(8);
  } finally {
    await file.close();
  }
}
