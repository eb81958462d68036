// A build's staged objects (its source, its output) are written through URLs signed for the run, which stay valid
// until the run's deadline and a margin after it: a build command can read its own output URL, and a PUT to it after
// the build finished, or after its SourceBuild was deleted, stored an object no pass deletes again and no quota
// counts (found in review). This sweep deletes, every `intervalMs`, the objects under `source-builds/` of a
// SourceBuild that no longer exists, and the staged source and output of one that finished.
import type { SourceBuild } from '../../../src/apis/v1alpha1/source-build.ts';
import type { Runnable } from '../../../src/controller-runtime/manager.ts';
import { keyOf, type Informer } from '../../../src/kube/index.ts';
import type { Logger } from '../../../src/logging/log.ts';
import { listAll } from '../../../src/object-store/list-all.ts';
import type { ObjectStore } from '../../../src/object-store/object-store.ts';
import { isFinished } from '../../../src/platform/app-sources/source-view.ts';
import { outputKey, sourceKey } from './source-export.ts';

/** How often the staged objects are swept (at most this long a stray object stays, past its URL's lifetime). */
export const SWEEP_INTERVAL_MS = 15 * 60_000;

/** An object this young may be a new build's whose SourceBuild the cache has not seen yet. */
const YOUNG_MS = 5 * 60_000;

const BUILDS_PREFIX = 'source-builds/';

export interface StagedObjectSweepDeps {
  readonly builds: Informer<SourceBuild>;
  /**
   * The one namespace `builds` watches (CW_WATCH_NAMESPACE), if any: only its objects are swept. The bucket is shared,
   * and every other namespace's builds are missing from such a cache, so their logs were taken for strays (review-162 F6).
   */
  readonly namespace?: string;
  readonly artifacts: ObjectStore;
  readonly log: Logger;
  readonly intervalMs?: number;
  readonly now?: () => number;
}

export class StagedObjectSweep implements Runnable {
  readonly name = 'source-build-staged-objects';
  readonly #deps: StagedObjectSweepDeps;
  #timer: NodeJS.Timeout | undefined;
  #sweeping: Promise<void> | undefined;

  constructor(deps: StagedObjectSweepDeps) {
    this.#deps = deps;
  }

  async start(signal: AbortSignal): Promise<void> {
    await this.#deps.builds.waitForSync(signal);
    const interval = this.#deps.intervalMs ?? SWEEP_INTERVAL_MS;
    this.#timer = setInterval(() => void this.sweepOnce(), interval);
    this.#timer.unref();
  }

  async stop(): Promise<void> {
    clearInterval(this.#timer);
    await this.#sweeping;
  }

  /** One pass (one at a time). Failures are logged and left to the next pass. */
  sweepOnce(): Promise<void> {
    this.#sweeping ??= this.#sweep()
      .catch((err: unknown) => this.#deps.log.warn('sweeping staged build objects failed; the next pass tries again', { err }))
      .finally(() => (this.#sweeping = undefined));
    return this.#sweeping;
  }

  async #sweep(): Promise<void> {
    const { builds, artifacts, log } = this.#deps;
    const now = (this.#deps.now ?? Date.now)();
    let deleted = 0;
    const prefix = this.#deps.namespace === undefined ? BUILDS_PREFIX : `${BUILDS_PREFIX}${this.#deps.namespace}/`;
    for await (const object of listAll(artifacts, prefix)) {
      const [namespace = '', name = ''] = object.key.slice(BUILDS_PREFIX.length).split('/');
      const build = builds.get(keyOf(namespace, name));
      const stray =
        build === undefined ? now - object.lastModified.getTime() > YOUNG_MS : isFinished(build.status?.state) && [outputKey(namespace, name), sourceKey(namespace, name)].includes(object.key);
      if (!stray) continue;
      await artifacts.delete(object.key);
      deleted++;
    }
    if (deleted > 0) log.info('staged build objects deleted: of builds gone or finished', { objects: deleted });
  }
}
