import type { Registry } from 'prom-client';
import { isFinished } from '../../../src/platform/app-sources/source-view.ts';
import {
  AppSourceConditions,
  AppSourceReasons,
  MAX_PREVIEWS_PER_SOURCE,
  PREVIEW_BRANCH_ANNOTATION,
  PREVIEW_EXPIRES_ANNOTATION,
  PREVIEW_OF_LABEL,
  type AppSource,
  type AppSourceStatus,
  type SourceDeployment,
} from '../../../src/apis/v1alpha1/app-source.ts';
import type { Database } from '../../../src/apis/v1alpha1/database.ts';
import { PUSHED_SEQ_ANNOTATION, type Repository } from '../../../src/apis/v1alpha1/repository.ts';
import { RUNTIME_APP_FINALIZER, type RuntimeApp } from '../../../src/apis/v1alpha1/runtime-app.ts';
import { MAX_SOURCE_BUILDS_PER_APP, SUPERSEDED_BY_ANNOTATION, type SourceBuild } from '../../../src/apis/v1alpha1/source-build.ts';
import { setCondition, statusChanged } from '../../../src/conditions/index.ts';
import { Controller, type Result } from '../../../src/controller-runtime/controller.ts';
import { WrittenStatus } from '../../../src/controller-runtime/written-status.ts';
import type { EventRecorder } from '../../../src/controller-runtime/events.ts';
import { ConflictError, PublicError } from '../../../src/errors.ts';
import { isAlreadyExists, isNotFound, objectClient, statusCodeOf, type Informer, type KubeConnection, type KubeObject } from '../../../src/kube/index.ts';
import type { Logger } from '../../../src/logging/log.ts';
import { APP_LABEL } from '../../../src/platform/app-view.ts';
import type { BuildCatalog } from '../../../src/platform/builds.ts';
import { refuseActivationApplied } from '../../../src/platform/deploy-options.ts';
import { APP_SOURCES, DATABASES, PROJECT_LABEL, RUNTIME_APPS, SOURCE_BUILDS } from '../../../src/platform/resources.ts';
import type { RepoStore } from '../../../src/repo-store/repo-store.ts';
import { defaultHost } from '../../../src/runtime-contract/hosts.ts';
import { ensureForks, planPreviewDatabases } from './preview-databases.ts';
import { projectRepository } from './project-repository.ts';
import { byPush } from '../../../src/platform/deployed-by.ts';
import { buildName, buildSpec, productionBranch, targetsOf, type Target, type Targets } from './targets.ts';
import { withStalled } from '../../../src/conditions/stalled.ts';

/** A preview whose branch is gone is deleted this long after (a branch deleted by mistake and pushed again keeps it). */
export const DEFAULT_PREVIEW_GRACE_MS = 60 * 60 * 1000;
/** Refs are read again this often even without a wake-up: a missed one delays a deploy, never loses it. */
export const DEFAULT_RESYNC_MS = 5 * 60 * 1000;

export interface AppSourceControllerDeps {
  kube: KubeConnection;
  sources: Informer<AppSource>;
  builds: Informer<SourceBuild>;
  apps: Informer<RuntimeApp>;
  repositories: Informer<Repository>;
  /** The databases production apps link, and previews' copies of them. */
  databases: Informer<Database>;
  /** The repositories' bucket: the refs are read from there, the one source of truth. */
  repos: Pick<RepoStore, 'readHead'>;
  /** Activates a stored build as a rollback does. */
  catalog: Pick<BuildCatalog, 'rollback'>;
  baseDomain: string;
  previewGraceMs?: number;
  resyncMs?: number;
  events: EventRecorder;
  registry: Registry;
  log: Logger;
  now?: () => Date;
}

const keyOf = (obj: KubeObject) => `${obj.metadata?.namespace ?? ''}/${obj.metadata?.name ?? ''}`;

/**
 * Deploys every push of a connected repository: derives from the repository's refs (read from the bucket, not
 * from events, so a missed or doubled wake-up changes nothing) one SourceBuild per branch head it deploys,
 * cancels the builds a newer push superseded, activates each branch's newest successful build on its app (the
 * production app, or the branch's preview app, which it creates and owns), deletes a preview a grace period after
 * its branch goes, and prunes old builds. The only writer of AppSource status and of preview apps.
 */
export function appSourceController(deps: AppSourceControllerDeps): Controller<AppSource> {
  const now = deps.now ?? (() => new Date());
  const graceMs = deps.previewGraceMs ?? DEFAULT_PREVIEW_GRACE_MS;
  const sources = objectClient<AppSource>(deps.kube, APP_SOURCES);
  const builds = objectClient<SourceBuild>(deps.kube, SOURCE_BUILDS);
  const apps = objectClient<RuntimeApp>(deps.kube, RUNTIME_APPS);
  const databaseClient = objectClient<Database>(deps.kube, DATABASES);

  const owner = (source: AppSource) => ({
    apiVersion: 'cloudwright.dev/v1alpha1',
    kind: 'AppSource',
    name: source.metadata?.name ?? '',
    uid: source.metadata?.uid ?? '',
    controller: true,
    blockOwnerDeletion: true,
  });
  const buildsOf = (source: AppSource) => deps.builds.list(source.metadata?.namespace).filter((b) => b.metadata?.namespace === source.metadata?.namespace && b.spec.source === source.metadata?.name);
  const previewsOf = (source: AppSource) =>
    deps.apps.list(source.metadata?.namespace).filter((a) => a.metadata?.namespace === source.metadata?.namespace && a.metadata?.labels?.[PREVIEW_OF_LABEL] === source.metadata?.name);

  /**
   * The preview app of `target`, created or brought to the source's settings, with its copies of the app's
   * databases (previewDatabases Fork): `refused` when it cannot be, `note` when a copy cannot be made.
   */
  const ensurePreview = async (source: AppSource, app: RuntimeApp, target: Target): Promise<{ refused?: string; note?: string; databases: string[] }> => {
    const namespace = source.metadata?.namespace ?? '';
    const existing = deps.apps.get(`${namespace}/${target.app}`);
    if (existing && existing.metadata?.labels?.[PREVIEW_OF_LABEL] !== source.metadata?.name)
      return { refused: `an app named ${target.app} exists already, so branch ${target.branch} gets no preview`, databases: [] };
    const databaseOf = (name: string) => deps.databases.get(`${namespace}/${name}`);
    const plan = planPreviewDatabases(source, app, target.app, { ...app.spec.environment, ...source.spec.environment?.preview }, databaseOf);
    const spec: RuntimeApp['spec'] = {
      displayName: `${app.spec.displayName} (${target.branch})`.slice(0, 128),
      ...(existing?.spec.activeBuildId ? { activeBuildId: existing.spec.activeBuildId } : {}),
      // Written with the active build by its activation (catalog.rollback): kept with it.
      ...(existing?.spec.migrations ? { migrations: existing.spec.migrations } : {}),
      ...(Object.keys(plan.environment).length > 0 ? { environment: plan.environment } : {}),
      ...(plan.databaseEnvironment ? { databaseEnvironment: plan.databaseEnvironment } : {}),
      ...(app.spec.https ? { https: app.spec.https } : {}),
    };
    const databases = plan.forks.map((f) => f.name);
    let preview = existing;
    if (!preview) {
      try {
        preview = await apps.create({
          metadata: {
            name: target.app,
            namespace,
            labels: { [PROJECT_LABEL]: namespace, [PREVIEW_OF_LABEL]: source.metadata?.name ?? '' },
            annotations: { [PREVIEW_BRANCH_ANNOTATION]: target.branch },
            finalizers: [RUNTIME_APP_FINALIZER],
            ownerReferences: [owner(source)],
          },
          spec,
        });
      } catch (err) {
        // The cache is behind: the next pass sees whose app it is. Nothing is deployed to it meanwhile.
        if (isAlreadyExists(err)) return { refused: `the preview app ${target.app} is being created`, databases: [] };
        if (err instanceof Error && /exceeded quota/.test(err.message))
          return { refused: `the project has as many apps as its quota allows, so branch ${target.branch} gets no preview`, databases: [] };
        throw err;
      }
    } else {
      const expiring = preview.metadata?.annotations?.[PREVIEW_EXPIRES_ANNOTATION] !== undefined;
      if (expiring || statusChanged(preview.spec, spec)) {
        await apps.patch(namespace, target.app, {
          metadata: { resourceVersion: preview.metadata?.resourceVersion, annotations: { [PREVIEW_EXPIRES_ANNOTATION]: null } },
          spec: { ...spec, environment: spec.environment ?? null, databaseEnvironment: spec.databaseEnvironment ?? null, https: spec.https ?? null },
        });
      }
    }
    const note = await ensureForks(databaseClient, plan, preview, source, databaseOf, now());
    return { ...(note ? { note } : {}), databases };
  };

  /** The build of the target's head exists; builds of older heads of the branch not yet finished are cancelled. */
  /** Builds of older heads of the target's branch not yet finished are cancelled: the head supersedes them. */
  const cancelSuperseded = async (source: AppSource, target: Target): Promise<void> => {
    const name = buildName(target);
    for (const stale of buildsOf(source)) {
      const superseded = stale.spec.app === target.app && stale.metadata?.name !== name && !stale.spec.cancelled && !isFinished(stale.status?.state);
      if (superseded) await builds.patch(source.metadata?.namespace ?? '', stale.metadata?.name ?? '', { metadata: { annotations: { [SUPERSEDED_BY_ANNOTATION]: name } }, spec: { cancelled: true } });
    }
  };

  const ensureBuild = async (source: AppSource, app: RuntimeApp, target: Target): Promise<SourceBuild | undefined> => {
    const namespace = source.metadata?.namespace ?? '';
    const name = buildName(target);
    await cancelSuperseded(source, target);
    const existing = deps.builds.get(`${namespace}/${name}`);
    // The branch came back to a commit whose build was superseded (a force-push back): build it afresh. One a
    // user cancelled stays cancelled until the next push.
    if (existing?.status?.state === 'Cancelled' && existing.metadata?.annotations?.[SUPERSEDED_BY_ANNOTATION]) {
      await builds.delete(namespace, name).catch((err: unknown) => {
        if (!isNotFound(err)) throw err;
      });
      return undefined;
    }
    if (existing) return existing;
    try {
      await builds.create({
        metadata: { name, namespace, labels: { [PROJECT_LABEL]: namespace, [APP_LABEL]: target.app }, ownerReferences: [owner(source)] },
        spec: buildSpec(source, target, app.spec.environment),
      });
    } catch (err) {
      if (!isAlreadyExists(err)) throw err;
    }
    return undefined;
  };

  /** The last refusal of a head before its build, per app: the head and app version it was for, and why. */
  const refusals = new Map<string, { asked: string; message: string }>();
  /** Why a build may not be made active on `app` (a GitOps tool applies its `activeBuildId`), or `undefined`. */
  const activationRefusal = (app: RuntimeApp): string | undefined => {
    try {
      refuseActivationApplied(app);
      return undefined;
    } catch (err) {
      if (err instanceof ConflictError) return err.message;
      throw err;
    }
  };

  /** The branch's entry as it stands before this pass deploys anything: what was deployed stays recorded. */
  const entryOf = (source: AppSource, target: Target, before: SourceDeployment | undefined): SourceDeployment => ({
    branch: target.branch,
    app: target.app,
    host: defaultHost(source.metadata?.namespace ?? '', target.app, deps.baseDomain),
    commit: target.commit,
    build: buildName(target),
    ...(before?.app === target.app && before.deployedCommit ? { deployedCommit: before.deployedCommit, deployedBuildId: before.deployedBuildId, deployedAt: before.deployedAt } : {}),
  });

  /**
   * A head not built yet, for an app whose `activeBuildId` a GitOps tool applies: refused before it is built (its
   * deploy would be), as the API refuses such a deploy before reading its upload. Read live, since caches keep no
   * managedFields; once the tool lets the field go, the app's change wakes the source and the head is built.
   */
  const refusedBeforeBuild = async (source: AppSource, target: Target, before: SourceDeployment | undefined): Promise<BranchDeployment | undefined> => {
    const namespace = source.metadata?.namespace ?? '';
    if (deps.builds.get(`${namespace}/${buildName(target)}`) || before?.deployedCommit === target.commit) return undefined;
    const key = `${namespace}/${target.app}`;
    const cached = deps.apps.get(key);
    // Refused for this head and this version of the app already: the app has not changed, so neither has the answer.
    const asked = `${target.commit}@${cached?.metadata?.resourceVersion ?? ''}`;
    let message = refusals.get(key)?.asked === asked ? refusals.get(key)?.message : undefined;
    if (message === undefined) {
      const live = await apps.get(namespace, target.app);
      message = live ? activationRefusal(live) : undefined;
      if (message === undefined) {
        refusals.delete(key);
        return undefined;
      }
      refusals.set(key, { asked, message });
    }
    await cancelSuperseded(source, target);
    // No SourceBuild is named: none is made for this head while the tool applies the field.
    const { build: _none, ...entry } = entryOf(source, target, before);
    return { entry: { ...entry, message: `${target.commit.slice(0, 12)} is not built, as it could not be deployed: ${message}`.slice(0, 1024) }, waiting: AppSourceReasons.DeployFailed };
  };

  /**
   * Makes the target's build the app's active one when it succeeded and is not deployed yet. Answers the branch's
   * entry and, while its head is not deployed, why (the reason Ready gives for the production branch).
   */
  const deploy = async (source: AppSource, target: Target, build: SourceBuild | undefined, before: SourceDeployment | undefined): Promise<BranchDeployment> => {
    const namespace = source.metadata?.namespace ?? '';
    const entry = entryOf(source, target, before);
    const state = build?.status?.state;
    // By state, not spec.cancelled: a supersede can mark a build that had just succeeded, which still deploys.
    if (state === 'Cancelled') return { entry: { ...entry, message: `the build of ${target.commit.slice(0, 12)} was cancelled: push again to build` }, waiting: AppSourceReasons.BuildCancelled };
    if (state === 'Failed')
      return {
        entry: { ...entry, message: `the build of ${target.commit.slice(0, 12)} failed: ${build?.status?.message ?? 'no reason given'}`.slice(0, 1024) },
        waiting: AppSourceReasons.BuildFailed,
      };
    if (state !== 'Succeeded' || !build?.status?.buildId) return { entry: { ...entry, message: `building ${target.commit.slice(0, 12)}` }, waiting: AppSourceReasons.Building };
    if (entry.deployedCommit === target.commit) return { entry };
    try {
      const repository = source.spec.repository;
      await deps.catalog.rollback(namespace, target.app, build.status.buildId, byPush(`${repository.owner}/${repository.name}`, target.commit));
    } catch (err) {
      if (!(err instanceof PublicError) || err.status >= 500) throw err;
      return { entry: { ...entry, message: `build ${build.status.buildId} could not be deployed: ${err.message}` }, waiting: AppSourceReasons.DeployFailed };
    }
    void deps.events.normal(source, 'Deployed', `deployed ${target.branch}@${target.commit.slice(0, 12)} to ${target.app} (build ${build.status.buildId})`);
    return { entry: { ...entry, deployedCommit: target.commit, deployedBuildId: build.status.buildId, deployedAt: now().toISOString() } };
  };

  /** Previews whose branch is gone: marked with their expiry, deleted (with their builds) once it passed. Answers the nearest expiry. */
  const retirePreviews = async (source: AppSource, live: ReadonlySet<string>): Promise<number | undefined> => {
    const namespace = source.metadata?.namespace ?? '';
    let next: number | undefined;
    for (const preview of previewsOf(source)) {
      const name = preview.metadata?.name ?? '';
      if (live.has(name) || preview.metadata?.deletionTimestamp) continue;
      const expires = preview.metadata?.annotations?.[PREVIEW_EXPIRES_ANNOTATION];
      if (!expires) {
        const at = new Date(now().getTime() + graceMs).toISOString();
        await apps.patch(namespace, name, { metadata: { annotations: { [PREVIEW_EXPIRES_ANNOTATION]: at } } });
        next = Math.min(next ?? Infinity, graceMs);
        continue;
      }
      const left = Date.parse(expires) - now().getTime();
      if (left > 0) {
        next = Math.min(next ?? Infinity, left);
        continue;
      }
      for (const b of buildsOf(source).filter((b) => b.spec.app === name)) await builds.delete(namespace, b.metadata?.name ?? '').catch(ignoreNotFound);
      await apps.delete(namespace, name).catch(ignoreNotFound);
      void deps.events.normal(source, 'PreviewDeleted', `deleted the preview ${name}: its branch ${preview.metadata?.annotations?.[PREVIEW_BRANCH_ANNOTATION] ?? ''} is gone`);
    }
    return next;
  };

  /** Finished builds past the newest MAX_SOURCE_BUILDS_PER_APP of each app go (never the one deployed). */
  const prune = async (source: AppSource, deployed: ReadonlySet<string>): Promise<void> => {
    const byApp = new Map<string, SourceBuild[]>();
    for (const b of buildsOf(source)) byApp.set(b.spec.app, [...(byApp.get(b.spec.app) ?? []), b]);
    for (const list of byApp.values()) {
      const old = list
        .filter((b) => isFinished(b.status?.state))
        .sort((a, b) => Date.parse(b.metadata?.creationTimestamp ?? '') - Date.parse(a.metadata?.creationTimestamp ?? ''))
        .slice(MAX_SOURCE_BUILDS_PER_APP)
        .filter((b) => !deployed.has(b.metadata?.name ?? ''));
      for (const b of old) await builds.delete(b.metadata?.namespace ?? '', b.metadata?.name ?? '').catch(ignoreNotFound);
    }
  };

  // A merge patch, not a replace: this controller is the status's one writer, and a reconcile woken by a build's
  // change often reads the source from a cache that has not seen the last write yet (a replace would conflict).
  // A reconcile starts from the status the last write left, so what was deployed is never read from before the deploy.
  const written = new WrittenStatus<AppSourceStatus>();
  const writeStatus = async (source: AppSource, computed: AppSourceStatus): Promise<void> => {
    const status = { ...computed, conditions: withStalled('AppSource', computed.conditions, source.metadata?.generation, now()) };
    if (!statusChanged(source.status, status)) return;
    // A merge patch keeps the keys it does not name: production's are named, null when they went (a message
    // of a build now deployed), and the whole of it null when production went.
    const production = status.production ? { ...Object.fromEntries(Object.keys(source.status?.production ?? {}).map((k) => [k, null])), ...status.production } : null;
    const patched = await sources.patchStatus(source.metadata?.namespace ?? '', source.metadata?.name ?? '', { status: { ...status, production } });
    written.remember(patched, status);
  };

  const condition = (source: AppSource, status: AppSourceStatus, type: string, ok: boolean, reason: string, message: string): AppSourceStatus => {
    const { conditions } = setCondition(status.conditions, { type, status: ok ? 'True' : 'False', reason, message }, source.metadata?.generation, now());
    return { ...status, conditions, observedGeneration: source.metadata?.generation };
  };

  const sourcesNaming = (repository: KubeObject & Partial<Repository>) =>
    deps.sources
      .list(repository.metadata?.namespace)
      .filter((s) => s.metadata?.namespace === repository.metadata?.namespace && s.spec.repository.owner === repository.spec?.owner && s.spec.repository.name === repository.spec?.name)
      .map(keyOf);

  return new Controller<AppSource>({
    name: 'appsource',
    kind: 'AppSource',
    source: deps.sources,
    owns: [
      { kind: 'SourceBuild', source: deps.builds },
      // Preview apps are the source's; a production app's change (its environment) is its source's too.
      { kind: 'RuntimeApp', source: deps.apps, mapToOwner: (app) => [app.metadata?.labels?.[PREVIEW_OF_LABEL] ? `${app.metadata.namespace}/${app.metadata.labels[PREVIEW_OF_LABEL]}` : keyOf(app)] },
      { kind: 'Repository', source: deps.repositories, mapToOwner: (repo) => sourcesNaming(repo as Repository) },
      // A preview's copy of a database: once it has its URL, the preview's variables holding the original's get it.
      { kind: 'Database', source: deps.databases, mapToOwner: (db) => (db.metadata?.labels?.[PREVIEW_OF_LABEL] ? [`${db.metadata.namespace}/${db.metadata.labels[PREVIEW_OF_LABEL]}`] : []) },
    ],
    registry: deps.registry,
    log: deps.log,
    workers: 2,
    resyncPeriodMs: deps.resyncMs ?? DEFAULT_RESYNC_MS,
    reconcile: async (key, { namespace }): Promise<Result> => {
      const cached = deps.sources.get(key);
      if (!cached || cached.metadata?.deletionTimestamp) {
        written.forget(key);
        return;
      }
      const source = written.latest(cached);
      let status: AppSourceStatus = { ...source.status };
      const app = deps.apps.get(`${namespace}/${source.spec.app}`);
      // Without its app or its repository a source deploys nothing: its previews go as a deleted branch's do
      // (after the grace period), so they do not outlive it unseen. An unreadable repository keeps them.
      const retireAll = async (): Promise<Result> => {
        const nextExpiry = await retirePreviews(source, new Set());
        return nextExpiry === undefined ? undefined : { requeueAfter: Math.max(nextExpiry, 1000) };
      };
      if (!app) {
        await writeStatus(source, condition(source, status, AppSourceConditions.Ready, false, AppSourceReasons.AppNotFound, `there is no app ${source.spec.app} in this project`));
        return retireAll();
      }
      const { owner: repoOwner, name: repoName } = source.spec.repository;
      const found = projectRepository(deps.repositories, namespace, `${repoOwner}/${repoName}`);
      if ('missing' in found) {
        status = condition(source, status, AppSourceConditions.RepositoryReady, false, AppSourceReasons.RepositoryNotFound, found.missing);
        await writeStatus(source, condition(source, status, AppSourceConditions.Ready, false, AppSourceReasons.RepositoryNotFound, found.missing));
        return retireAll();
      }
      const repository = found.repository;
      let refs: ReadonlyMap<string, string>;
      try {
        const head = await deps.repos.readHead(`${repoOwner}/${repoName}`, { fresh: true });
        if (head.repoId !== repository.status?.repoId) throw new Error('the bucket holds another incarnation of it than this project’s Repository');
        refs = head.refs;
      } catch (err) {
        const message = `the repository ${repoOwner}/${repoName} cannot be read: ${err instanceof Error ? err.message : String(err)}`.slice(0, 1024);
        await writeStatus(source, condition(source, status, AppSourceConditions.RepositoryReady, false, AppSourceReasons.RepositoryUnavailable, message));
        return { requeueAfter: 30_000 };
      }
      const targets = targetsOf(source, refs);
      status = condition(
        source,
        status,
        AppSourceConditions.RepositoryReady,
        true,
        'Read',
        [`refs read at seq ${repository.metadata?.annotations?.[PUSHED_SEQ_ANNOTATION] ?? repository.status?.headSeq ?? '?'}`, ...skippedBranches(targets)].join('; ').slice(0, 1024),
      );

      let production: SourceDeployment | undefined;
      let productionWaiting: BranchDeployment['waiting'];
      if (targets.production) {
        const before = source.status?.production;
        const refused = await refusedBeforeBuild(source, targets.production, before);
        ({ entry: production, waiting: productionWaiting } = refused ?? (await deploy(source, targets.production, await ensureBuild(source, app, targets.production), before)));
      }
      const previews: SourceDeployment[] = [];
      for (const target of targets.previews) {
        const before = source.status?.previews?.find((p) => p.branch === target.branch);
        try {
          const preview = await ensurePreview(source, app, target);
          if (preview.refused) {
            previews.push({ branch: target.branch, app: target.app, commit: target.commit, message: preview.refused });
            continue;
          }
          const { entry: deployment } = await deploy(source, target, await ensureBuild(source, app, target), before);
          previews.push({
            ...deployment,
            ...(preview.databases.length > 0 ? { databases: preview.databases } : {}),
            ...(preview.note && !deployment.message ? { message: preview.note } : {}),
          });
        } catch (err) {
          // The apiserver refusing one preview's objects (its merged environment too large, say) is that
          // preview's failure: the others and production go on.
          if (statusCodeOf(err) !== 422) throw err;
          previews.push({ branch: target.branch, app: target.app, commit: target.commit, message: `no preview: ${err instanceof Error ? err.message : String(err)}`.slice(0, 1024) });
        }
      }
      const nextExpiry = await retirePreviews(source, new Set(targets.previews.map((t) => t.app)));
      const deployed = new Set([production, ...previews].flatMap((d) => (d?.deployedCommit ? [buildName({ app: d.app, commit: d.deployedCommit })] : [])));
      await prune(source, deployed);

      status = { ...status, ...(production ? { production } : {}), previews };
      if (!production) delete status.production;
      const main = productionBranch(source);
      status = !production
        ? condition(source, status, AppSourceConditions.Ready, false, AppSourceReasons.BranchNotFound, `branch ${main} has no commits yet: push to it to deploy`)
        : production.deployedCommit === production.commit
          ? condition(source, status, AppSourceConditions.Ready, true, AppSourceReasons.Deployed, `${main}@${production.commit?.slice(0, 12)} is deployed`)
          : condition(source, status, AppSourceConditions.Ready, false, productionWaiting ?? AppSourceReasons.Building, production.message ?? '');
      await writeStatus(source, status);
      return nextExpiry === undefined ? undefined : { requeueAfter: Math.max(nextExpiry, 1000) };
    },
  });
}

/** A branch's entry in the status, and why its head is not deployed yet (none once it is). */
interface BranchDeployment {
  entry: SourceDeployment;
  waiting?: typeof AppSourceReasons.Building | typeof AppSourceReasons.BuildFailed | typeof AppSourceReasons.BuildCancelled | typeof AppSourceReasons.DeployFailed;
}

/** What the status says of the preview branches that got no preview: names a build cannot carry, and past the bound. */
function skippedBranches(targets: Targets): string[] {
  const list = (names: readonly string[]) => (names.length > 5 ? `${names.slice(0, 5).join(', ')} and ${names.length - 5} more` : names.join(', '));
  return [
    ...(targets.unnamed.length > 0 ? [`no preview for ${list(targets.unnamed)}: branch names of letters, digits, '_', '-', '.' and '/' only`] : []),
    ...(targets.leftOut.length > 0 ? [`no preview for ${list(targets.leftOut)}: a source has at most ${MAX_PREVIEWS_PER_SOURCE} previews (the first branches by name)`] : []),
  ];
}

function ignoreNotFound(err: unknown): void {
  if (!isNotFound(err)) throw err;
}
