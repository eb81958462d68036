import type { Build } from '../apis/v1alpha1/build.ts';
import { refuseAppliedElsewhere } from './applied-elsewhere.ts';
import { DEFAULT_CACHE_WAIT_MS, settle } from './settle.ts';
import type { RuntimeApp } from '../apis/v1alpha1/runtime-app.ts';
import { isConflict, isGoneFrom, isNotFound, keyOf, objectClient, retryOnConflict, waitFor, type Informer, type KubeConnection, type ObjectClient } from '../kube/index.ts';
import { BUILDS, RUNTIME_APPS } from './resources.ts';
import { uploadedAtOf } from './app-view.ts';
import { ConflictError, NotFoundError } from '../errors.ts';
import { normalizeHost } from '../runtime-contract/hosts.ts';
import { sharedIndex } from '../kube/informer-index.ts';
import { listedHostsOf } from '../runtime-contract/listed-hosts.ts';
import { servedRecordSettled } from './served-record.ts';
import { storedBuilds } from './stored-builds-quota.ts';

/**
 * How often a write is tried while it keeps losing optimistic-concurrency races. Each race has a winner,
 * so this many concurrent writers of one app (a script setting variables in parallel) all get through.
 */
const MAX_ATTEMPTS = 25;

export interface AppStoreOptions {
  /** How long a write waits for the caches to reflect it (default 5 s); see {@link AppStore}. */
  readonly cacheWaitMs?: number;
}

/**
 * RuntimeApps and their Builds for the REST routes: a project is the namespace of the same name, an app the
 * RuntimeApp named by its app id. Reads come from informer caches; writes go to the apiserver conditional on
 * the resourceVersion they read, retried on a conflict, and resolve once the caches show them (bounded), so
 * a caller reads its own writes. An app whose deletion has begun counts as gone.
 */
export class AppStore {
  readonly apps: ObjectClient<RuntimeApp>;
  readonly builds: ObjectClient<Build>;
  readonly #appCache: Informer<RuntimeApp>;
  readonly #buildCache: Informer<Build>;
  readonly #cacheWaitMs: number;

  constructor(conn: KubeConnection, appCache: Informer<RuntimeApp>, buildCache: Informer<Build>, options: AppStoreOptions = {}) {
    this.apps = objectClient<RuntimeApp>(conn, RUNTIME_APPS);
    this.builds = objectClient<Build>(conn, BUILDS);
    this.#appCache = appCache;
    this.#buildCache = buildCache;
    this.#cacheWaitMs = options.cacheWaitMs ?? DEFAULT_CACHE_WAIT_MS;
  }

  /** The project's apps (cache). */
  list(project: string): RuntimeApp[] {
    return this.#appCache.list(project).filter((a) => a.metadata?.namespace === project && !a.metadata.deletionTimestamp);
  }

  /**
   * The apps of any project whose spec lists `hostname` (cache), for host name conflicts: a lookup, where a walk
   * over every app of the cluster took a deploy tens of milliseconds at 100,000 apps.
   */
  listing(hostname: string): RuntimeApp[] {
    // Built on first use and shared by every store on this cache (not every process asks).
    const listed = sharedIndex(this.#appCache, 'listed-hosts', (a) => (a.metadata?.deletionTimestamp ? [] : listedHostsOf(a)));
    return listed.objects(normalizeHost(hostname) ?? hostname).filter((a) => !a.metadata?.deletionTimestamp);
  }

  /** The app `project/appId` (cache), or undefined when there is none or its deletion has begun. */
  find(project: string, appId: string): RuntimeApp | undefined {
    const app = this.#appCache.get(`${project}/${appId}`);
    return app?.metadata?.deletionTimestamp ? undefined : app;
  }

  /** @throws NotFoundError */
  cached(project: string, appId: string): RuntimeApp {
    const app = this.#appCache.get(`${project}/${appId}`);
    if (!app || app.metadata?.deletionTimestamp) throw missingApp(project, appId);
    return app;
  }

  /** The app as the apiserver has it now, for a write to build on. @throws NotFoundError */
  async live(project: string, appId: string): Promise<RuntimeApp> {
    const app = await this.apps.get(project, appId);
    if (!app || app.metadata?.deletionTimestamp) throw missingApp(project, appId);
    return app;
  }

  /** The app's builds (cache), in no particular order. */
  buildsOf(project: string, appId: string): Build[] {
    return this.#buildCache.list(project).filter((b) => b.metadata?.namespace === project && b.spec.app === appId);
  }

  /** Every build of the project (cache), in no particular order. */
  buildsIn(project: string): Build[] {
    return this.#buildCache.list(project).filter((b) => b.metadata?.namespace === project);
  }

  /** The project's builds whose artifacts the bucket still holds (cache): not those of an app whose teardown is done. */
  storedBuildsIn(project: string): Build[] {
    return storedBuilds(this.buildsIn(project), (name) => this.#appCache.get(keyOf(project, name)));
  }

  /** Every build of the project (cache), keyed by app id. */
  buildsByApp(project: string): Map<string, Build[]> {
    const byApp = new Map<string, Build[]>();
    for (const build of this.#buildCache.list(project)) {
      if (build.metadata?.namespace !== project) continue;
      const builds = byApp.get(build.spec.app);
      if (builds) builds.push(build);
      else byApp.set(build.spec.app, [build]);
    }
    return byApp;
  }

  /**
   * Applies `change` to the live app and writes it conditionally, re-reading and re-applying after a
   * conflict. `change` returns the new spec, or `undefined` to write nothing; it may throw to refuse.
   * With `uid`, only that incarnation of the app is changed: one deleted and created again counts as gone.
   * @throws NotFoundError when the app does not exist (or is being deleted)
   */
  update(project: string, appId: string, change: (app: RuntimeApp) => RuntimeApp['spec'] | undefined, options: { uid?: string | undefined } = {}): Promise<RuntimeApp> {
    return this.updateObject(
      project,
      appId,
      (app) => {
        const spec = change(app);
        return spec && { ...app, spec };
      },
      options,
    );
  }

  /** {@link update} of the whole object (its annotations too): `change` returns the new object or `undefined`. */
  async updateObject(project: string, appId: string, change: (app: RuntimeApp) => RuntimeApp | undefined, options: { uid?: string | undefined } = {}): Promise<RuntimeApp> {
    try {
      return await retryOnConflict(async () => {
        const app = await this.live(project, appId);
        if (options.uid !== undefined && app.metadata?.uid !== options.uid) throw missingApp(project, appId);
        const next = change(app);
        if (next === undefined) return app;
        refuseAppliedElsewhere(app, next);
        // Conditional on the resourceVersion just read (and so on the uid): a lost race is a 409, retried.
        const written = await this.apps.replace(next).catch((err: unknown) => {
          throw isNotFound(err) ? missingApp(project, appId) : err;
        });
        await this.settleApp(written);
        return written;
      }, MAX_ATTEMPTS);
    } catch (err) {
      if (isConflict(err)) throw new ConflictError(`App ${appId} is being changed by many requests at once; retry.`);
      throw err;
    }
  }

  /** Resolves once the app cache holds `written` or a later version of it (bounded). */
  settleApp(written: RuntimeApp): Promise<void> {
    const key = `${written.metadata?.namespace}/${written.metadata?.name}`;
    const generation = written.metadata?.generation ?? 0;
    return settle(this.#appCache, key, (cached) => cached?.metadata?.uid === written.metadata?.uid && (cached?.metadata?.generation ?? 0) >= generation, this.#cacheWaitMs);
  }

  /** Resolves once the app cache no longer holds this incarnation of the app (bounded). */
  settleAppGone(app: RuntimeApp): Promise<void> {
    const key = `${app.metadata?.namespace}/${app.metadata?.name}`;
    return settle(this.#appCache, key, isGoneFrom(app), this.#cacheWaitMs);
  }

  /**
   * Resolves once this incarnation of the app is gone from the cache (no longer held at all, not merely
   * being deleted: its finalizers done), or after `timeoutMs`; answers whether it went.
   */
  async waitAppRemoved(app: RuntimeApp, timeoutMs: number): Promise<boolean> {
    const key = `${app.metadata?.namespace}/${app.metadata?.name}`;
    const { met } = await waitFor(this.#appCache, key, (cached) => cached?.metadata?.uid !== app.metadata?.uid, timeoutMs);
    return met;
  }

  /**
   * Resolves once what the app asks for now is recorded as served or known not to serve (`servedRecordSettled`),
   * or it is gone, or after `timeoutMs`: a build with migrations is held back, serving what is recorded meanwhile.
   */
  async settleServedRecord(project: string, appId: string, timeoutMs: number): Promise<void> {
    await settle(this.#appCache, `${project}/${appId}`, (cached) => cached === undefined || servedRecordSettled(cached), timeoutMs);
  }

  /** Resolves once the build cache holds (`present`) or no longer holds the build (bounded). */
  settleBuild(namespace: string, name: string, present: boolean): Promise<void> {
    return settle(this.#buildCache, `${namespace}/${name}`, (cached) => (cached !== undefined) === present, this.#cacheWaitMs);
  }

  /** Resolves once the build cache holds `written` or a later version of it (bounded). */
  settleBuildWritten(written: Build): Promise<void> {
    const key = `${written.metadata?.namespace}/${written.metadata?.name}`;
    const generation = written.metadata?.generation ?? 0;
    return settle(this.#buildCache, key, (cached) => cached?.metadata?.uid === written.metadata?.uid && (cached?.metadata?.generation ?? 0) >= generation, this.#cacheWaitMs);
  }

  /** Resolves once the build cache holds the build uploaded at `uploadedAt` or later (bounded). */
  settleBuildUploaded(namespace: string, name: string, uploadedAt: string): Promise<void> {
    const since = Date.parse(uploadedAt);
    return settle(this.#buildCache, `${namespace}/${name}`, (cached) => cached !== undefined && Date.parse(uploadedAtOf(cached)) >= since, this.#cacheWaitMs);
  }
}

export function missingApp(project: string, appId: string): NotFoundError {
  return new NotFoundError(`Project ${project} has no app ${appId}.`);
}
