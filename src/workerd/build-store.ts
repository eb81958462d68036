import { randomBytes } from 'node:crypto';
import { mkdir, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { parseArtifact, type ModuleType, type ParseArtifactOptions } from './artifact.ts';
import type { AssetServiceConfig } from './build-config.ts';
import { ArtifactError, ArtifactTooLargeError } from './errors.ts';
import type { ArtifactSource, BuildRef } from './ports.ts';

/** A build unpacked on disk, ready for a workerd config. */
export interface PreparedBuild {
  readonly buildId: string;
  readonly digest: string;
  /** The entry point first; `file` is absolute. */
  readonly modules: readonly { readonly name: string; readonly type: ModuleType; readonly file: string }[];
  /** Absolute; absent when the build has no assets. */
  readonly assetsDir?: string;
  readonly assetConfig: AssetServiceConfig;
  readonly compatibilityDate: string;
  readonly compatibilityFlags: readonly string[];
}

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
 * artifact once through the `ArtifactSource` and validating it again (the store is not trusted more
 * than the upload was). A build is written to a temporary directory and renamed into place, so a crash
 * never leaves half a build that looks complete; a finished build is reused across restarts.
 */
export class BuildStore {
  readonly #root: string;
  readonly #artifacts: ArtifactSource;
  readonly #parse: ParseArtifactOptions;
  readonly #builds = new Map<string, Promise<PreparedBuild>>();

  constructor(root: string, artifacts: ArtifactSource, parse: ParseArtifactOptions = {}) {
    this.#root = root;
    this.#artifacts = artifacts;
    this.#parse = parse;
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
      // A fetch that failed is retried next time; an invalid artifact stays invalid, so that answer is kept.
      build.catch((err: unknown) => {
        if (!(err instanceof ArtifactError || err instanceof ArtifactTooLargeError)) this.#builds.delete(key);
      });
    }
    return build;
  }

  /** Deletes every build whose {@link buildKey} is not in `keep`, on disk and in memory. Never call it while a `prepare` runs. */
  async retain(keep: ReadonlySet<string>): Promise<void> {
    for (const id of this.#builds.keys()) if (!keep.has(id)) this.#builds.delete(id);
    const entries = await readdir(this.#root).catch(() => []);
    const unused = entries.filter((name) => !keep.has(name) && !name.startsWith('.tmp-'));
    await Promise.all(unused.map((name) => rm(join(this.#root, name), { recursive: true, force: true })));
  }

  async #load(ref: BuildRef, key: string): Promise<PreparedBuild> {
    const dir = join(this.#root, key);
    const existing = await readFile(join(dir, MANIFEST), 'utf8').then(
      (text) => JSON.parse(text) as PreparedBuild,
      () => undefined,
    );
    if (existing) return existing;

    const artifact = await parseArtifact(await this.#artifacts.fetch(ref), this.#parse);
    const tmp = join(this.#root, `.tmp-${key}-${randomBytes(4).toString('hex')}`);
    try {
      const write = async (path: string, content: Uint8Array) => {
        await mkdir(dirname(path), { recursive: true });
        await writeFile(path, content);
      };
      for (const m of artifact.modules) await write(join(tmp, 'modules', m.name), m.content);
      for (const a of artifact.assets) await write(join(tmp, 'assets', a.path), a.content);
      const build: PreparedBuild = {
        buildId: ref.buildId,
        digest: artifact.digest,
        modules: artifact.modules.map((m) => ({ name: m.name, type: m.type, file: join(dir, 'modules', m.name) })),
        ...(artifact.assets.length > 0 ? { assetsDir: join(dir, 'assets') } : {}),
        assetConfig: artifact.assetConfig,
        compatibilityDate: artifact.compatibilityDate,
        compatibilityFlags: artifact.compatibilityFlags,
      };
      await writeFile(join(tmp, MANIFEST), JSON.stringify(build));
      await rm(dir, { recursive: true, force: true });
      await rename(tmp, dir);
      return build;
    } finally {
      await rm(tmp, { recursive: true, force: true });
    }
  }
}
