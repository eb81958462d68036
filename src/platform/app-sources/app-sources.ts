import type { AppSourceSummary } from '../app-view.ts';
import { refuseAppliedElsewhere, refuseDeleteOfApplied } from '../applied-elsewhere.ts';
import { isDeepStrictEqual } from 'node:util';
import { PREVIEW_OF_LABEL, type AppSource, type AppSourceSpec } from '../../apis/v1alpha1/app-source.ts';
import { API_VERSION } from '../../apis/v1alpha1/group-version.ts';
import type { Repository } from '../../apis/v1alpha1/repository.ts';
import type { SourceBuild } from '../../apis/v1alpha1/source-build.ts';
import { ConflictError, NotFoundError } from '../../errors.ts';
import { isAlreadyExists, isConflict, isGoneFrom, isNotFound, objectClient, retryOnConflict, type Informer, type KubeConnection, type ObjectClient } from '../../kube/index.ts';
import type { AppStore } from '../app-store.ts';
import { APP_SOURCES, PROJECT_LABEL, SOURCE_BUILDS } from '../resources.ts';
import { DEFAULT_CACHE_WAIT_MS, settle } from '../settle.ts';
import { isFinished, sourceBuildView, sourceView, type SourceBuildView, type SourceView } from './source-view.ts';

/** What a connect asks for: the AppSource's spec without its app (the path names it). */
export type SourceSettings = Omit<AppSourceSpec, 'app'>;

export interface SourceBuildPage {
  builds: SourceBuildView[];
  /** Pass as `cursor` for the next page; null at the end. */
  next: string | null;
}

export interface AppSourcesOptions {
  /** How long a write waits for the caches to show it (default 5 s). */
  readonly cacheWaitMs?: number;
}

/**
 * The repositories connected to a project's apps (`AppSource`, named after its app) and the builds the
 * operator derives from them (`SourceBuild`). The API writes the source's spec and a build's `spec.cancelled`,
 * never a status: the AppSource and SourceBuild controllers own those. Reads come from the informer caches.
 */
export class AppSources {
  readonly #sources: ObjectClient<AppSource>;
  readonly #builds: ObjectClient<SourceBuild>;
  readonly #apps: AppStore;
  readonly #sourceCache: Informer<AppSource>;
  readonly #buildCache: Informer<SourceBuild>;
  readonly #repositoryCache: Informer<Repository>;
  readonly #cacheWaitMs: number;

  constructor(conn: KubeConnection, apps: AppStore, caches: { sources: Informer<AppSource>; builds: Informer<SourceBuild>; repositories: Informer<Repository> }, options: AppSourcesOptions = {}) {
    this.#sources = objectClient<AppSource>(conn, APP_SOURCES);
    this.#builds = objectClient<SourceBuild>(conn, SOURCE_BUILDS);
    this.#apps = apps;
    this.#sourceCache = caches.sources;
    this.#buildCache = caches.builds;
    this.#repositoryCache = caches.repositories;
    this.#cacheWaitMs = options.cacheWaitMs ?? DEFAULT_CACHE_WAIT_MS;
  }

  /**
   * The repository (`owner/name`) connected to the app, if any (cache), and why its production branch's head is
   * not served when it is not: what the app view shows.
   */
  summaryOf(project: string, appId: string): AppSourceSummary | undefined {
    const source = this.#sourceCache.get(`${project}/${appId}`);
    if (!source || source.metadata?.deletionTimestamp) return undefined;
    const view = sourceView(source);
    return { repository: view.repository, message: view.state === 'failed' ? view.message : undefined };
  }

  /** The settings of the app's connection, if it has one (what a PUT would replace). */
  settingsOf(project: string, appId: string): SourceSettings | undefined {
    const source = this.#sourceCache.get(`${project}/${appId}`);
    if (!source || source.metadata?.deletionTimestamp) return undefined;
    const { app: _app, ...settings } = source.spec;
    return settings;
  }

  /** @throws NotFoundError for an unknown app, or one not connected */
  get(project: string, appId: string): SourceView {
    this.#apps.cached(project, appId);
    return sourceView(this.#cached(project, appId));
  }

  /**
   * Connects the app to a repository of the project, or replaces the settings of its connection (PUT: what
   * `settings` leaves out is reset to its default). Answers whether the source was created.
   * @throws NotFoundError for an unknown app or repository; ConflictError for a preview app, or a source being disconnected
   */
  async put(project: string, appId: string, settings: SourceSettings): Promise<{ view: SourceView; created: boolean }> {
    const app = this.#apps.cached(project, appId);
    const previewOf = app.metadata?.labels?.[PREVIEW_OF_LABEL];
    if (previewOf !== undefined) throw new ConflictError(`App ${appId} is a preview of ${previewOf}, made from a branch of its repository; connect ${previewOf} instead.`);
    const { owner, name } = settings.repository;
    // A project's repositories are `<project>/<name>` (what its git tokens reach). A Repository in this namespace
    // naming another owner holds nothing (the Repository controller refuses it): connecting through one would
    // build another project's code into this one's app.
    const repository =
      owner === project
        ? this.#repositoryCache.list(project).find((r) => r.metadata?.namespace === project && r.spec.owner === owner && r.spec.name === name && !r.metadata.deletionTimestamp)
        : undefined;
    if (!repository) {
      const hint = owner === project ? '' : ` (its repositories are ${project}/<name>)`;
      throw new NotFoundError(`Project ${project} has no repository ${owner}/${name}${hint}.`);
    }
    const spec: AppSourceSpec = { app: appId, ...settings };
    try {
      const created = await this.#sources.create({
        apiVersion: API_VERSION,
        kind: 'AppSource',
        metadata: {
          name: appId,
          namespace: project,
          labels: { [PROJECT_LABEL]: project },
          // Deleting the app deletes its connection (and with it the previews the operator made from it).
          ownerReferences: [{ apiVersion: API_VERSION, kind: 'RuntimeApp', name: appId, uid: app.metadata?.uid ?? '' }],
        },
        spec,
      });
      await this.#settle(created);
      return { view: sourceView(created), created: true };
    } catch (err) {
      if (!isAlreadyExists(err)) throw err;
    }
    const written = await this.#replace(project, appId, spec);
    return { view: sourceView(written), created: false };
  }

  /**
   * Disconnects the app: the AppSource goes, and the garbage collector deletes what it owns (the previews).
   * The app keeps serving what it serves. @throws NotFoundError for an unknown app, or one not connected
   */
  async delete(project: string, appId: string): Promise<void> {
    this.#apps.cached(project, appId);
    const source = this.#cached(project, appId);
    await refuseDeleteOfApplied(this.#sources, project, appId, source.metadata?.uid);
    const gone = await this.#sources.delete(project, appId, { preconditions: { uid: source.metadata?.uid } }).catch((err: unknown) => {
      if (isConflict(err)) return false; // another incarnation: not the one this request saw
      throw err;
    });
    if (!gone) throw notConnected(project, appId);
    await settle(this.#sourceCache, `${project}/${appId}`, isGoneFrom(source), this.#cacheWaitMs);
  }

  /** The builds of the app and of its previews, newest first. @throws NotFoundError for an unknown app */
  listBuilds(project: string, appId: string, query: { branch?: string | undefined; cursor?: string | undefined; limit: number }): SourceBuildPage {
    this.#apps.cached(project, appId);
    const all = this.#buildCache
      .list(project)
      .filter((b) => b.metadata?.namespace === project && belongsTo(b, appId) && (query.branch === undefined || b.spec.branch === query.branch))
      .map((b) => ({ key: sortKey(b), build: b }))
      .sort((a, b) => compareKeys(a.key, b.key));
    const after = query.cursor === undefined ? all : all.filter((b) => compareKeys(b.key, query.cursor ?? '') > 0);
    const page = after.slice(0, query.limit);
    const last = page.at(-1);
    return { builds: page.map((b) => sourceBuildView(b.build)), next: after.length > page.length && last ? last.key : null };
  }

  /** @throws NotFoundError for an unknown app, or a build not of it or its previews */
  getBuild(project: string, appId: string, name: string): SourceBuildView {
    return sourceBuildView(this.build(project, appId, name));
  }

  /** The SourceBuild itself (cache), for its log. @throws NotFoundError */
  build(project: string, appId: string, name: string): SourceBuild {
    this.#apps.cached(project, appId);
    const build = this.#buildCache.get(`${project}/${name}`);
    if (!build || build.metadata?.deletionTimestamp || !belongsTo(build, appId)) throw new NotFoundError(`App ${appId} has no source build ${name}.`);
    return build;
  }

  /** The build as the cache has it now, or undefined once it is gone (a follower's stop). */
  currentBuild(project: string, name: string): SourceBuild | undefined {
    return this.#buildCache.get(`${project}/${name}`);
  }

  /**
   * Asks the operator to cancel the build (`spec.cancelled`): a queued build never starts, a running one is
   * stopped. Asking again is no change. @throws NotFoundError; ConflictError once the build has finished
   */
  async cancelBuild(project: string, appId: string, name: string): Promise<SourceBuildView> {
    const build = this.build(project, appId, name);
    if (isFinished(build.status?.state)) throw finished(build);
    if (build.spec.cancelled) return sourceBuildView(build);
    try {
      const written = await retryOnConflict(async () => {
        const live = await this.#builds.get(project, name);
        if (!live || live.metadata?.uid !== build.metadata?.uid) throw new NotFoundError(`App ${appId} has no source build ${name}.`);
        if (isFinished(live.status?.state)) throw finished(live);
        if (live.spec.cancelled) return live;
        const cancelled = { ...live, spec: { ...live.spec, cancelled: true } };
        refuseAppliedElsewhere(live, cancelled);
        return this.#builds.replace(cancelled);
      });
      await settle(this.#buildCache, `${project}/${name}`, (cached) => cached?.spec.cancelled === true || cached?.metadata?.uid !== written.metadata?.uid, this.#cacheWaitMs);
      return sourceBuildView(written);
    } catch (err) {
      if (isNotFound(err)) throw new NotFoundError(`App ${appId} has no source build ${name}.`);
      throw err;
    }
  }

  #cached(project: string, appId: string): AppSource {
    const source = this.#sourceCache.get(`${project}/${appId}`);
    if (!source || source.metadata?.deletionTimestamp) throw notConnected(project, appId);
    return source;
  }

  async #replace(project: string, appId: string, spec: AppSourceSpec): Promise<AppSource> {
    try {
      return await retryOnConflict(async () => {
        const live = await this.#sources.get(project, appId);
        if (!live) throw new ConflictError(`App ${appId}'s repository connection was just removed; retry.`);
        if (live.metadata?.deletionTimestamp) throw new ConflictError(`App ${appId} is being disconnected from its repository; retry in a few seconds.`);
        if (isDeepStrictEqual(live.spec, spec)) return live;
        refuseAppliedElsewhere(live, { ...live, spec });
        const written = await this.#sources.replace({ ...live, spec });
        await this.#settle(written);
        return written;
      });
    } catch (err) {
      if (isConflict(err)) throw new ConflictError(`App ${appId}'s repository connection is being changed by many requests at once; retry.`);
      throw err;
    }
  }

  #settle(written: AppSource): Promise<void> {
    const generation = written.metadata?.generation ?? 0;
    return settle(
      this.#sourceCache,
      `${written.metadata?.namespace}/${written.metadata?.name}`,
      (cached) => cached?.metadata?.uid === written.metadata?.uid && (cached?.metadata?.generation ?? 0) >= generation,
      this.#cacheWaitMs,
    );
  }
}

/** A build of the app itself, or of one of its previews (their builds name the app's source). */
function belongsTo(build: SourceBuild, appId: string): boolean {
  return build.spec.app === appId || build.spec.source === appId;
}

/**
 * Newest first: the creation time's milliseconds subtracted from a constant, so that the keys sort ascending,
 * then the name. The key of a page's last build is the next page's cursor.
 */
function sortKey(build: SourceBuild): string {
  const created = Date.parse(build.metadata?.creationTimestamp ?? '') || 0;
  return `${String(MAX_TIME - created).padStart(15, '0')}.${build.metadata?.name ?? ''}`;
}
const MAX_TIME = 999_999_999_999_999;

function compareKeys(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function notConnected(project: string, appId: string): NotFoundError {
  return new NotFoundError(`App ${appId} of project ${project} is not connected to a repository.`);
}

function finished(build: SourceBuild): ConflictError {
  return new ConflictError(`Source build ${build.metadata?.name} has already finished (${(build.status?.state ?? '').toLowerCase()}); there is nothing to cancel.`);
}
