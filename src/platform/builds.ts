import type { Build, BuildDeployOptions } from '../apis/v1alpha1/build.ts';
import { isNamespaceTerminating } from './namespace-refusal.ts';
import type { RuntimeApp, RuntimeAppSpec } from '../apis/v1alpha1/runtime-app.ts';
import { isAlreadyExists, isNotFound, KubeApiError } from '../kube/index.ts';
import type { ObjectStore } from '../object-store/object-store.ts';
import type { Artifact } from '../app-artifacts/artifact.ts';
import { DEFAULT_ARTIFACT_LIMITS, readArtifact, type ArtifactLimits } from '../app-artifacts/artifact.ts';
import { ArtifactTooLargeError } from '../app-artifacts/errors.ts';
import type { AppStore } from './app-store.ts';
import { APP_LABEL, buildView, hostsOf, newestFirst, UPLOADED_AT_ANNOTATION, type BuildView } from './app-view.ts';
import { artifactKey, buildIdFor, buildResourceName } from './artifact-keys.ts';
import { requireArtifactStore } from './artifact-store.ts';
import type { NameFacts } from './host-admission.ts';
import { DeployHostRules } from './deploy-host-rules.ts';
import { PROJECT_LABEL } from './resources.ts';
import { ConflictError, NotFoundError, PublicError } from '../errors.ts';
import { keepingApplied, recordedOptions, refuseAskedApplied, sameOptions, withOptions } from './deploy-options.ts';
import { appliedElsewhere, refuseAppliedElsewhere } from './applied-elsewhere.ts';
import { activeUnpackedBytes, checkProjectQuota, DEFAULT_PROJECT_UNPACKED_QUOTA, unpackedSizeOf, type ActiveBuild } from './build-quota.ts';
import { checkStoredBuildsQuota, DEFAULT_PROJECT_STORED_BUILDS_QUOTA, keptStoredBytes, STORED_BYTES_ANNOTATION, storedBytes } from './stored-builds-quota.ts';
import { UploadSpool } from './upload-spool.ts';
import { withDeployedBy } from './deployed-by.ts';
import { deployHistoryView, type DeploymentView } from './deploy-history.ts';
import { withActiveBuild } from './build-migrations.ts';
import { SERVED_RECORD_WAIT_MS } from './served-record.ts';

/**
 * Builds kept per app: the most recently uploaded ones, as Cloudflare keeps a Worker's 100 most recent
 * versions. The RuntimeApp controller prunes older ones (their Build and artifact); the active build is never
 * pruned.
 */
export const MAX_BUILDS_PER_APP = 100;

/**
 * The deploy options (query parameters of the deploy route), already parsed. Each deploy sets them all, as
 * the spec's per-deployment options: one left out is its default, never the previous deploy's value.
 */
export interface DeployOptions {
  /** The app's deploy host names; absent or `[]`: none. Attached custom domains are served either way. */
  readonly hostnames?: readonly string[] | undefined;
  /** The app's concurrency bound; absent: the runtime's default. */
  readonly maxConcurrentRequests?: number | undefined;
  /** Who deploys, for the deploy history (`deployed-by.ts`). */
  readonly by?: string | undefined;
  /** Called once the upload is read and stored, before anything waits: what bounds uploads being read can let it go. */
  readonly stored?: (() => void) | undefined;
}

/** The spec's deploy result; a rollback answers the same shape with `uploaded: false`. */
export interface DeployResult {
  app_id: string;
  build_id: string;
  /** The app's hosts after the deploy: its default host first, then its deploy host names. */
  hosts: string[];
  uploaded: boolean;
}

export interface BuildCatalogOptions {
  readonly baseDomain: string;
  /** Where artifacts are stored; without one, deploys and rollbacks answer 503. */
  readonly artifacts: ObjectStore | undefined;
  readonly limits?: Partial<ArtifactLimits>;
  /** What a project's apps' active builds may unpack to together; default {@link DEFAULT_PROJECT_UNPACKED_QUOTA}. */
  readonly projectUnpackedQuota?: number;
  /** What a project's stored builds (compressed, kept for rollbacks) may take together; default {@link DEFAULT_PROJECT_STORED_BUILDS_QUOTA}. */
  readonly projectStoredBuildsQuota?: number;
  /** Where uploads are kept while they are checked (default: the temporary directory). */
  readonly spoolDir?: string;
  /** The newest compatibility date the runtime's workerd supports; unchecked here when absent. */
  readonly maxCompatibilityDate?: string | undefined;
  readonly now?: () => Date;
  /** What the host-name admission rule reads (host-admission.ts); without it, custom host names need attaching first. */
  readonly nameFacts?: () => NameFacts;
  /**
   * The app's AppHostnames whose proof of control completed (finalized: the binding is `active`): served
   * from those objects, not from the deploy's `hostnames`, so a deploy neither writes nor removes them.
   */
  readonly finalizedHostnames?: (project: string, appId: string) => readonly string[];
  /** How long a build with migrations waits for the release before it to be recorded as served (default {@link SERVED_RECORD_WAIT_MS}). */
  readonly servedRecordWaitMs?: number;
}

/** A project's use of its quota on unpacked builds, as its view shows it. */
export interface ProjectBuildUsage {
  /** Bytes the project's apps' active builds unpack to. */
  readonly activeUnpackedBytes: number;
  /** The most they may unpack to together. */
  readonly quota: number;
  /** Bytes the project's stored builds take in the bucket (compressed, every app's, those kept for rollbacks included). */
  readonly storedBytes: number;
  /** The most they may take; past it the oldest are let go. */
  readonly storedQuota: number;
}

/**
 * Builds of runtime apps: uploads (validated, stored content-addressed, recorded as a Build, then made
 * active), rollbacks to a stored build, and listings.
 */
export class BuildCatalog {
  readonly #store: AppStore;
  readonly #options: BuildCatalogOptions;
  readonly #limits: ArtifactLimits;
  readonly #hosts: DeployHostRules;

  constructor(store: AppStore, options: BuildCatalogOptions) {
    this.#store = store;
    this.#options = options;
    this.#limits = { ...DEFAULT_ARTIFACT_LIMITS, ...options.limits };
    this.#hosts = new DeployHostRules(store, options);
  }

  /** The project's quota on unpacked builds and what its active builds use of it (cache). */
  usage(project: string): ProjectBuildUsage {
    return {
      activeUnpackedBytes: activeUnpackedBytes(this.#activeBuilds(project)),
      quota: this.#quota,
      storedBytes: storedBytes(this.#store.storedBuildsIn(project)),
      storedQuota: this.#storedQuota,
    };
  }

  get #storedQuota(): number {
    return this.#options.projectStoredBuildsQuota ?? DEFAULT_PROJECT_STORED_BUILDS_QUOTA;
  }

  /** Throws when `size` bytes more would not fit beside the builds retention keeps for the project (cache). */
  #checkStored(project: string, size: number): void {
    checkStoredBuildsQuota(project, this.#storedQuota, keptStoredBytes(this.#store.list(project), this.#store.buildsIn(project)), size);
  }

  get #quota(): number {
    return this.#options.projectUnpackedQuota ?? DEFAULT_PROJECT_UNPACKED_QUOTA;
  }

  get #servedRecordWaitMs(): number {
    return this.#options.servedRecordWaitMs ?? SERVED_RECORD_WAIT_MS;
  }

  /** Each app's active build with the bytes it counts for (cache); a build without its Build counts nothing. */
  #activeBuilds(project: string): ActiveBuild[] {
    const builds = this.#store.buildsByApp(project);
    return this.#store.list(project).flatMap((app) => {
      const appId = app.metadata?.name ?? '';
      const buildId = app.spec.activeBuildId;
      if (!buildId) return [];
      const build = builds.get(appId)?.find((b) => b.spec.buildId === buildId);
      return [{ appId, buildId, unpackedBytes: build ? unpackedSizeOf(build) : 0 }];
    });
  }

  /** The app's builds, newest first. @throws NotFoundError */
  list(project: string, appId: string): BuildView[] {
    const app = this.#store.cached(project, appId);
    return newestFirst(this.#store.buildsOf(project, appId)).map((b) => buildView(b, app.spec.activeBuildId));
  }

  /** The app's deploy history, newest first (cache). @throws NotFoundError */
  history(project: string, appId: string): DeploymentView[] {
    return deployHistoryView(this.#store.cached(project, appId));
  }

  /**
   * Deploys the artifact read from `body`. Each step starts only once the one before is durable: the bytes
   * are read (at most the upload limit) and validated in full as they stream (kept in a temporary file, never
   * in memory), against the artifact limits and the project quota, before anything is written; the artifact is
   * stored under its content address (a conditional create: one already there has the same digest, so the
   * same bytes); then the Build is recorded, owned by the app; only then does the app's `activeBuildId`
   * point at it. A failure part way leaves at most a stored artifact or a Build that nothing points at,
   * which the same upload reuses and which deleting the app removes; the app keeps serving what it served.
   *
   * @param declaredLength the request's Content-Length, so an oversized upload is refused before it is read
   * @throws NotFoundError, ArtifactError (400), ArtifactTooLargeError (413), ProjectQuotaError (409/413), BadRequestError, ConflictError
   */
  async deploy(project: string, appId: string, body: AsyncIterable<Uint8Array>, declaredLength: number | undefined, options: DeployOptions): Promise<DeployResult> {
    return this.#upload(project, appId, body, declaredLength, options, true);
  }

  /**
   * Stores an artifact as a deploy does (validated, content-addressed, recorded as a Build) without making it
   * active: a build from a commit, which its AppSource activates once it is the branch's newest (`rollback`
   * activates a stored build). It records no deploy options, so activating it leaves the app's as they are.
   * Answers the build id.
   * @throws as `deploy`
   */
  async store(project: string, appId: string, body: AsyncIterable<Uint8Array>, declaredLength: number | undefined): Promise<string> {
    return (await this.#upload(project, appId, body, declaredLength, {}, false)).build_id;
  }

  async #upload(project: string, appId: string, body: AsyncIterable<Uint8Array>, declaredLength: number | undefined, options: DeployOptions, activate: boolean): Promise<DeployResult> {
    const app = await this.#store.live(project, appId);
    const artifacts = requireArtifactStore(this.#options.artifacts);
    // Host names a GitOps tool applies are its own (kept as they are, checked by its controller), not the deploy's.
    const hostnames = activate && !appliedElsewhere(app, ['spec', 'hostnames']) ? this.#hosts.check(project, appId, options.hostnames ?? []) : [];
    if (activate) {
      // Before the upload is read: a deploy a GitOps tool would undo stores nothing (checked again as it is written).
      refuseAskedApplied(app, askedOptions(options));
      refuseAppliedElsewhere(app, { ...app, spec: { ...keepingApplied(app, withOptions(app.spec, recordedOptions(hostnames, options.maxConcurrentRequests))), activeBuildId: UPLOAD_PENDING } });
    }
    const max = this.#limits.maxCompressedBytes;
    if (declaredLength !== undefined && declaredLength > max) {
      throw new ArtifactTooLargeError('compressedBytes', max, `artifact is larger than ${max} bytes`);
    }
    if (declaredLength !== undefined) this.#checkStored(project, declaredLength);
    // Checked as the files' headers arrive, against the other apps' active builds (this app's is replaced).
    const used = activeUnpackedBytes(this.#activeBuilds(project), appId);
    let unpacked = 0;
    const spool = await UploadSpool.create(this.#options.spoolDir);
    try {
      const artifact = await readArtifact(spool.tee(body), {
        limits: this.#limits,
        ...(this.#options.maxCompatibilityDate ? { maxCompatibilityDate: this.#options.maxCompatibilityDate } : {}),
        budget: { spend: (bytes) => checkProjectQuota(project, this.#quota, used, (unpacked += bytes), true) },
      });
      return await this.#activate(project, appId, app, artifacts, artifact, spool, hostnames, options, activate);
    } finally {
      await spool.dispose();
    }
  }

  /** Stores a validated upload, records its Build and (with `activate`) makes it the app's active build (the rest of `deploy`). */
  async #activate(
    project: string,
    appId: string,
    app: RuntimeApp,
    artifacts: ObjectStore,
    artifact: Artifact,
    spool: UploadSpool,
    hostnames: string[],
    options: DeployOptions,
    activate: boolean,
  ): Promise<DeployResult> {
    const digest = artifact.digest.slice('sha256:'.length);
    const buildId = buildIdFor(digest);
    const key = artifactKey(project, appId, buildId);
    const size = artifact.compressedBytes;
    // Older builds make room (the RuntimeApp controller lets them go past the quota); those it keeps cannot.
    // A build stored already adds nothing.
    if (!this.#store.buildsOf(project, appId).some((b) => b.spec.buildId === buildId)) this.#checkStored(project, size);

    const put = await artifacts.put(key, spool.body(), { ifNoneMatch: '*', sha256: digest, contentType: 'application/zstd' });
    const wrote = put.kind === 'written';
    if (!wrote) {
      const stored = await artifacts.head(key);
      if (!stored) throw new ConflictError(`The app's stored builds changed during the upload (was it deleted?); retry the deploy.`);
      if (stored.size !== size) {
        throw new ConflictError(`Build ${buildId} is already stored with different content (a digest prefix collision); change the artifact and deploy again.`);
      }
    }
    // The bytes are in the bucket: the upload's file on disk and its slot go before anything below waits.
    await spool.dispose().catch(() => {}); // tried again once the deploy ends
    options.stored?.();
    // What the deploy serves, and its build records: the options a GitOps tool applies as the app has them.
    const deployOptions = servedOptions(keepingApplied(app, withOptions(app.spec, recordedOptions(hostnames, options.maxConcurrentRequests))));
    let recorded: { build: Build; created: boolean } | undefined;
    try {
      recorded = await this.#record(app, {
        buildId,
        digest,
        size,
        unpackedSize: artifact.unpackedBytes,
        objectKey: key,
        ...(activate ? { deployOptions } : {}),
        ...(artifact.migrations ? { migrations: artifact.migrations } : {}),
      });
      if (!activate) {
        return { app_id: appId, build_id: buildId, hosts: hostsOf(app, this.#options.baseDomain, this.#hosts.finalized(project, appId)), uploaded: true };
      }
      if (artifact.migrations && app.spec.activeBuildId !== buildId) await this.#store.settleServedRecord(project, appId, this.#servedRecordWaitMs);
      const updated = await this.#store.updateObject(
        project,
        appId,
        (live) => {
          const { spec } = live;
          // Checked again as the write is made: another app may have taken a name, or another deploy of the
          // project some of its quota, during the upload.
          this.#hosts.withinLimit(project, appId, this.#hosts.check(project, appId, hostnames));
          checkProjectQuota(project, this.#quota, activeUnpackedBytes(this.#activeBuilds(project), appId), artifact.unpackedBytes);
          // Git's values as they are now: a change of them during the upload neither refuses the deploy nor is undone.
          refuseAskedApplied(live, askedOptions(options));
          return withDeployedBy(live, withActiveBuild(keepingApplied(live, withOptions(spec, deployOptions)), buildId, artifact.migrations), options.by);
        },
        { uid: app.metadata?.uid },
      );
      // A build uploaded before keeps the options of its earlier deploy until this one has succeeded; the build
      // records what is served (git's values may have changed during the upload).
      const served = servedOptions(updated.spec);
      if (!sameOptions(recorded.build.spec.deployOptions, served)) await this.#recordOptions(recorded.build, served);
      return { app_id: appId, build_id: buildId, hosts: hostsOf(updated, this.#options.baseDomain, this.#hosts.finalized(project, appId)), uploaded: true };
    } catch (err) {
      // The app was deleted meanwhile, or its whole project: nothing can point at what this upload wrote, so
      // it goes too (a project's deletion never looks for builds it did not know of).
      const projectGone = namespaceGone(err);
      if (err instanceof NotFoundError || projectGone) {
        if (recorded?.created) await this.#store.builds.delete(project, buildResourceName(appId, buildId)).catch(() => {});
        if (wrote) await artifacts.delete(key).catch(() => {});
      }
      throw projectGone ? new NotFoundError(`The app ${appId} was deleted, with its project, during the upload.`) : err;
    }
  }

  /**
   * Makes a stored build of the app active again, without an upload, with the deploy options it was last
   * deployed with (host names checked again as a deploy checks them: they may be another app's by now); a
   * build that recorded none keeps the app's. Attached custom domains are separate objects: untouched.
   * @throws NotFoundError, ConflictError, ForbiddenError, BadRequestError (nothing changed)
   */
  async rollback(project: string, appId: string, buildId: string, by?: string): Promise<DeployResult> {
    const app = await this.#store.live(project, appId);
    const artifacts = requireArtifactStore(this.#options.artifacts);
    const build = await this.#store.builds.get(project, buildResourceName(appId, buildId));
    if (!build || build.spec.app !== appId || build.spec.buildId !== buildId) {
      throw new NotFoundError(`App ${appId} has no build ${buildId}; GET …/apps/${appId}/builds lists its builds.`);
    }
    if (!(await artifacts.head(artifactKey(project, appId, buildId)))) {
      throw new ConflictError(`The artifact of build ${buildId} is missing from storage; deploy it again instead.`);
    }
    if (build.spec.migrations && app.spec.activeBuildId !== buildId) await this.#store.settleServedRecord(project, appId, this.#servedRecordWaitMs);
    const updated = await this.#store.updateObject(
      project,
      appId,
      (live) => {
        const { spec } = live;
        const recorded = build.spec.deployOptions;
        // Host names a GitOps tool applies are kept as they are, so they are not checked as the build's own.
        const gitHostnames = appliedElsewhere(live, ['spec', 'hostnames']);
        const next = recorded
          ? keepingApplied(live, withOptions(spec, { ...recorded, hostnames: gitHostnames ? [] : this.#recordedHostnames(project, appId, buildId, recorded.hostnames ?? []) }))
          : spec;
        if (spec.activeBuildId === buildId && sameOptions(next, spec)) return undefined;
        if (spec.activeBuildId !== buildId) {
          checkProjectQuota(project, this.#quota, activeUnpackedBytes(this.#activeBuilds(project), appId), unpackedSizeOf(build));
        }
        return withDeployedBy(live, withActiveBuild(next, buildId, build.spec.migrations), by);
      },
      { uid: app.metadata?.uid },
    );
    return { app_id: appId, build_id: buildId, hosts: hostsOf(updated, this.#options.baseDomain, this.#hosts.finalized(project, appId)), uploaded: false };
  }

  /**
   * Records the Build, owned by the app (the garbage collector deletes it with the app). One that exists
   * already is the same build uploaded before: it counts as uploaded now (the newest, so not pruned), and
   * keeps its recorded deploy options (the caller records this deploy's once it has succeeded).
   * Answers the Build and whether this call created it.
   */
  async #record(app: RuntimeApp, spec: Omit<Build['spec'], 'app'>): Promise<{ build: Build; created: boolean }> {
    const uploadedAt = (this.#options.now?.() ?? new Date()).toISOString();
    const namespace = app.metadata?.namespace ?? '';
    const appId = app.metadata?.name ?? '';
    const name = buildResourceName(appId, spec.buildId);
    const owner = {
      apiVersion: app.apiVersion ?? 'cloudwright.dev/v1alpha1',
      kind: 'RuntimeApp',
      name: appId,
      uid: app.metadata?.uid ?? '',
      controller: true,
      blockOwnerDeletion: true,
    };
    try {
      const build = await this.#store.builds.create({
        metadata: {
          name,
          namespace,
          labels: { [PROJECT_LABEL]: namespace, [APP_LABEL]: appId },
          annotations: { [UPLOADED_AT_ANNOTATION]: uploadedAt, [STORED_BYTES_ANNOTATION]: String(spec.size) },
          ownerReferences: [owner],
        },
        spec: { app: appId, ...spec },
      });
      await this.#store.settleBuild(namespace, name, true);
      return { build, created: true };
    } catch (err) {
      if (!isAlreadyExists(err)) throw err;
    }
    const existing = await this.#store.builds.get(namespace, name);
    if (!existing) throw new ConflictError(`Build ${spec.buildId} was removed during the upload (an older build pruned by another deploy); deploy again.`);
    if (existing.spec.digest !== spec.digest) {
      throw new ConflictError(`Build ${spec.buildId} is already recorded with a different digest; change the artifact and deploy again.`);
    }
    // Uploaded again: the newest build now. Left over from an earlier app of the same id: adopt it, or the
    // garbage collector would delete it.
    const adopt = existing.metadata?.ownerReferences?.some((r) => r.uid === owner.uid) ? {} : { ownerReferences: [owner] };
    // The size as stored now, whatever the Build's writer said (one written with kubectl may say anything).
    const annotations = { [UPLOADED_AT_ANNOTATION]: uploadedAt, [STORED_BYTES_ANNOTATION]: String(spec.size) };
    const build = await this.#store.builds.patch(namespace, name, { metadata: { ...adopt, annotations } });
    // Pruning and listing read the cache: until it holds the new time, this build would still look old.
    await this.#store.settleBuildUploaded(namespace, name, uploadedAt);
    return { build, created: false };
  }

  /**
   * Records `options` as the ones the build was last deployed with, replacing what it had (a merge patch
   * with each absent option as `null`, so it is removed), once this process's cache shows them.
   */
  async #recordOptions(build: Build, options: BuildDeployOptions): Promise<void> {
    const [namespace, name] = [build.metadata?.namespace ?? '', build.metadata?.name ?? ''];
    const deployOptions = { hostnames: options.hostnames ?? null, maxConcurrentRequests: options.maxConcurrentRequests ?? null };
    try {
      const written = await this.#store.builds.patch(namespace, name, { metadata: { uid: build.metadata?.uid }, spec: { deployOptions } });
      await this.#store.settleBuildWritten(written);
    } catch (err) {
      // Gone (the app deleted meanwhile): there is nothing left to record them on.
      if (!isNotFound(err)) throw err;
    }
  }

  /** A build's recorded host names, checked as a deploy's are; a refusal says they are the build's. */
  #recordedHostnames(project: string, appId: string, buildId: string, hostnames: readonly string[]): string[] {
    try {
      return [...this.#hosts.withinLimit(project, appId, this.#hosts.check(project, appId, hostnames))];
    } catch (err) {
      if (!(err instanceof PublicError)) throw err;
      throw new PublicError(err.status, `Build ${buildId} was deployed with host names it cannot have again, so nothing was rolled back: ${err.message} Deploy it again with other hostnames instead.`);
    }
  }
}

/** The options a deploy asked for explicitly (left out: not asked). */
function askedOptions(options: DeployOptions): BuildDeployOptions {
  return {
    ...(options.hostnames !== undefined ? { hostnames: [...options.hostnames] } : {}),
    ...(options.maxConcurrentRequests !== undefined ? { maxConcurrentRequests: options.maxConcurrentRequests } : {}),
  };
}

/** The deploy options an app's spec serves, as a build records them. */
function servedOptions(spec: RuntimeAppSpec): BuildDeployOptions {
  return recordedOptions(spec.hostnames ?? [], spec.maxConcurrentRequests);
}

/** Stands for the build being uploaded when a deploy is judged before its upload: any id differs from the app's. */
const UPLOAD_PENDING = '(the upload)';

/**
 * The apiserver refused a write into the project's namespace because it is gone (404) or being deleted
 * (403, "being terminated"): the project was deleted during the request.
 */
function namespaceGone(err: unknown): boolean {
  return (err instanceof KubeApiError && err.code === 404) || isNamespaceTerminating(err);
}
