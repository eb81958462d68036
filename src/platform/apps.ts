import { isDeepStrictEqual } from 'node:util';
import { namespaceRefusal } from './namespace-refusal.ts';
import { RUNTIME_APP_FINALIZER, type RuntimeApp } from '../apis/v1alpha1/runtime-app.ts';
import { isAlreadyExists, type KubeConnection } from '../kube/index.ts';
import type { ObjectStore } from '../object-store/object-store.ts';
import { deleteApp, type AppDeletionReport } from './app-deletion.ts';
import { appIdFor } from './app-id.ts';
import type { AppStore } from './app-store.ts';
import { appView, type AppSourceSummary, type AppView } from './app-view.ts';
import { defaultHost } from '../runtime-contract/hosts.ts';
import { PROJECT_LABEL } from './resources.ts';
import { ConflictError } from '../errors.ts';
import { applyHttpsChange, type HttpsChange } from './app-https-settings.ts';

export interface AppDirectoryOptions {
  /** The runtime's base domain: an app's default host is `<appId>.<project>.<baseDomain>`. */
  readonly baseDomain: string;
  /** The app's active (finalized) AppHostnames: served besides its default host and deploy host names. */
  readonly attachedHostnames?: (project: string, appId: string) => readonly string[];
  /** The repository (`owner/name`) connected to an app, for its view. */
  readonly sourceSummary?: (project: string, appId: string) => AppSourceSummary | undefined;
  /** Where build artifacts are stored: deleting an app counts what the operator deletes there. */
  readonly artifacts: ObjectStore | undefined;
  /** How long deleting an app waits for it to be gone (the operator deleting its artifacts); default 10 s. */
  readonly deleteAnswerWithinMs?: number | undefined;
}

/** Apps one project may have (Cloudflare's Workers plans allow 100 to 500 per account). Checked against the cache. */
export const MAX_APPS_PER_PROJECT = 100;

/**
 * Runtime apps of a project: registering one creates its RuntimeApp (nothing is deployed); deleting one
 * removes everything it owns (its artifacts by the operator) and reports what that was (see {@link deleteApp}).
 */
export class AppDirectory {
  readonly #store: AppStore;
  readonly #conn: KubeConnection;
  readonly #options: AppDirectoryOptions;

  constructor(conn: KubeConnection, store: AppStore, options: AppDirectoryOptions) {
    this.#conn = conn;
    this.#store = store;
    this.#options = options;
  }

  /** The project's apps, by app id. */
  list(project: string): AppView[] {
    const builds = this.#store.buildsByApp(project);
    return this.#store
      .list(project)
      .map((app) => {
        const appId = app.metadata?.name ?? '';
        return appView(app, builds.get(appId) ?? [], this.#options.baseDomain, this.#attached(project, appId), this.#source(project, appId));
      })
      .sort((a, b) => a.app_id.localeCompare(b.app_id));
  }

  /** @throws NotFoundError */
  get(project: string, appId: string): AppView {
    const app = this.#store.cached(project, appId);
    return appView(app, this.#store.buildsOf(project, appId), this.#options.baseDomain, this.#attached(project, appId), this.#source(project, appId));
  }

  /**
   * Registers an app named `name` under the id {@link appIdFor} derives from it. Names are therefore unique
   * within a project: a second app of the same name is a 409 naming the first.
   * @throws ConflictError when the id is taken or the project's namespace does not exist yet; BadRequestError for
   *   `https` asking for HSTS preload without its requirements
   */
  async create(project: string, name: string, https: HttpsChange = {}): Promise<AppView> {
    const appId = appIdFor(name);
    const settings = applyHttpsChange(undefined, https);
    const apps = this.#store.list(project);
    if (apps.length >= MAX_APPS_PER_PROJECT) throw new ConflictError(`Project ${project} has ${apps.length} apps, the most a project may have; delete one first.`);
    // Its default host may already be another app's deploy host name (the runtime would keep it there).
    const host = defaultHost(project, appId, this.#options.baseDomain);
    const holder = apps.find((a) => a.metadata?.name !== appId && a.spec.hostnames?.includes(host));
    if (holder) {
      throw new ConflictError(
        `${host}, the default host of an app named ${JSON.stringify(name)}, is bound to app ${holder.metadata?.name}; choose another name, or deploy ${holder.metadata?.name} without it first.`,
      );
    }
    let created: RuntimeApp;
    try {
      // With the artifact finalizer from the start: a deploy can store artifacts before the RuntimeApp
      // controller's first pass, and a kubectl delete in between must not leave them behind.
      const finalizers = this.#options.artifacts ? { finalizers: [RUNTIME_APP_FINALIZER] } : {};
      created = await this.#store.apps.create({
        metadata: { name: appId, namespace: project, labels: { [PROJECT_LABEL]: project }, ...finalizers },
        spec: { displayName: name, ...(settings ? { https: settings } : {}) },
      });
    } catch (err) {
      if (isAlreadyExists(err)) throw await this.#taken(project, appId, name);
      // The apiserver refuses objects in a namespace that does not exist: the operator has not set the project up yet.
      const refusal = namespaceRefusal(err, project);
      if (refusal) throw refusal;
      throw err;
    }
    await this.#store.settleApp(created);
    return appView(created, [], this.#options.baseDomain);
  }

  /**
   * Changes the app's settings (its HTTPS redirect and HSTS); the same settings again write nothing.
   * @throws NotFoundError; BadRequestError for HSTS preload without its requirements
   */
  async update(project: string, appId: string, change: { https?: HttpsChange | undefined }): Promise<AppView> {
    await this.#store.update(project, appId, ({ spec }) => {
      if (change.https === undefined) return undefined;
      const { https: current, ...rest } = spec;
      const next = applyHttpsChange(current, change.https);
      if (isDeepStrictEqual(next, current)) return undefined;
      return { ...rest, ...(next ? { https: next } : {}) };
    });
    return this.get(project, appId);
  }

  /** @throws NotFoundError */
  delete(project: string, appId: string): Promise<AppDeletionReport> {
    return deleteApp({ conn: this.#conn, store: this.#store, artifacts: this.#options.artifacts, answerWithinMs: this.#options.deleteAnswerWithinMs }, project, appId);
  }

  async #taken(project: string, appId: string, name: string): Promise<ConflictError> {
    const existing = await this.#store.apps.get(project, appId);
    if (existing?.metadata?.deletionTimestamp) return new ConflictError(`App ${appId} is still being deleted; retry in a few seconds.`);
    if (!existing || existing.spec.displayName === name) {
      return new ConflictError(`Project ${project} already has an app named ${JSON.stringify(name)} (app id ${appId}).`);
    }
    return new ConflictError(`The app id ${appId} for the name ${JSON.stringify(name)} is taken by another app; choose another name.`);
  }

  #source(project: string, appId: string): AppSourceSummary | undefined {
    return this.#options.sourceSummary?.(project, appId);
  }

  #attached(project: string, appId: string): readonly string[] {
    return this.#options.attachedHostnames?.(project, appId) ?? [];
  }
}
