import { Readable } from 'node:stream';
import type { Registry } from 'prom-client';
import { isFinished } from '../../../src/platform/app-sources/source-view.ts';
import { SourceBuildReasons, SUPERSEDED_BY_ANNOTATION, type SourceBuild, type SourceBuildStatus } from '../../../src/apis/v1alpha1/source-build.ts';
import { setCondition, statusChanged } from '../../../src/conditions/index.ts';
import { Controller, type Result } from '../../../src/controller-runtime/controller.ts';
import type { EventRecorder } from '../../../src/controller-runtime/events.ts';
import { addFinalizer, runFinalizer } from '../../../src/controller-runtime/finalizers.ts';
import { WrittenStatus } from '../../../src/controller-runtime/written-status.ts';
import { objectClient, objectKey, type Informer, type KubeConnection, type ResourceRef } from '../../../src/kube/index.ts';
import type { Logger } from '../../../src/logging/log.ts';
import { StoreUnavailableError, type ObjectStore } from '../../../src/object-store/object-store.ts';
import type { ObjectUrlSigner } from '../../../src/object-store/presigned-urls.ts';
import type { BuildCatalog } from '../../../src/platform/builds.ts';
import { SOURCE_BUILDS } from '../../../src/platform/resources.ts';
import { BuildLogWriter, deleteBuildLog, deleteBuildObjects } from '../../../src/platform/source-builds/build-log.ts';
import { trimBuildLog } from '../../../src/platform/source-builds/log-trim.ts';
import { buildsWithTrimmedLogs, TrimmedLogs } from './trimmed-logs.ts';
import { PublicError } from '../../../src/errors.ts';
import type { BuildLimits, BuildRunner, RunResult } from './build-runner.ts';
import { OutputInvalidError, packOpenedOutput } from './pack-output.ts';
import { outputKey, sourceKey, SourceUnavailableError, type SourceExporter } from './source-export.ts';
import { BuildSlots, type BuildAccount, type BuildConcurrency } from './build-slots.ts';
import { printable } from './printable.ts';
import { runId } from './run-id.ts';
import { urlLifetimeSeconds } from './url-lifetime.ts';
import { projectRepository } from '../app-source/project-repository.ts';
import type { Repository } from '../../../src/apis/v1alpha1/repository.ts';
import { SOURCE_BUILD_FINALIZER } from '../../../src/apis/v1alpha1/source-build.ts';
import type { Project } from '../../../src/apis/v1alpha1/project.ts';
import { projectAccount } from '../../../src/platform/project-account.ts';

export interface SourceBuildControllerDeps {
  kube: KubeConnection;
  builds: Informer<SourceBuild>;
  /** The projects' Repositories: a build reads only a Ready one of its own namespace. */
  repositories: Informer<Repository>;
  /** The Projects: a build is counted to the user who created its project, as well as to the project. */
  projects: Informer<Project>;
  runner: BuildRunner;
  exporter: SourceExporter;
  /** The artifact bucket: sources, outputs and logs of builds, and the artifacts they become. */
  artifacts: ObjectStore;
  /** Presigns the URLs a run gets for its source and output: no credential of the platform reaches a build. */
  urls: ObjectUrlSigner;
  catalog: BuildCatalog;
  limits: BuildLimits;
  /** Builds running at once, in all (default 2), per project and per user (default 1 each): one project's or one person's pushes cannot hold up the others'. */
  concurrency?: BuildConcurrency;
  events: EventRecorder;
  registry: Registry;
  log: Logger;
  now?: () => Date;
  /** How long after its push a build whose start keeps failing for the platform's sake fails (default {@link START_DEADLINE_MS}). */
  startDeadlineMs?: number;
  /** The SourceBuilds' resource (default {@link SOURCE_BUILDS}): a test's of an older CRD. */
  resource?: ResourceRef;
}

/** A build the platform could not start (its object store, the apiserver) within a day of its push fails, as a CI's queued job does. */
export const START_DEADLINE_MS = 24 * 3600 * 1000;

/**
 * Runs each SourceBuild once, through the build runner (a Job, or a local process), and is the only writer of
 * their status: Queued until a slot is free, Building while it runs (the run is followed again after an operator
 * restart, by its id), then Succeeded (the output packed as `cw deploy` packs it and stored as a Build of the app,
 * not yet active: the AppSource controller activates the branch's newest) or Failed with a reason, or Cancelled
 * when a newer push superseded it. Deleting one stops its run and removes its objects from the bucket. A finished
 * build past its app's newest few keeps only the end of its log (trimmed-logs.ts).
 */
export function sourceBuildController(deps: SourceBuildControllerDeps): Controller<SourceBuild> {
  const now = deps.now ?? (() => new Date());
  const startDeadlineMs = deps.startDeadlineMs ?? START_DEADLINE_MS;
  const client = objectClient<SourceBuild>(deps.kube, deps.resource ?? SOURCE_BUILDS);
  // A slot freed (a build finished, was deleted, or could not start): the builds waiting for one are looked at again.
  const slots = new BuildSlots(deps.concurrency ?? { total: 2, perProject: 1, perUser: 1 }, () => {
    const queued = deps.builds.list().filter((b) => !b.status?.state || b.status.state === 'Queued');
    slots.stillWaiting(new Set(queued.map((b) => objectKey(b))));
    for (const waiting of queued) controller.enqueue(objectKey(waiting));
  });
  /** Runs that ended and await their reconcile (which packs, stores and writes the status), by object key. */
  const results = new Map<string, RunResult>();
  const logs = new Map<string, BuildLogWriter>();
  // Merge patches: this controller is the status's one writer, and its reconciles may read a cache behind its own writes.
  // A reconcile starts from the status the last write left, so a later write (the whole status) never puts back an older field.
  const written = new WrittenStatus<SourceBuildStatus>();
  const write = async (build: SourceBuild, status: SourceBuildStatus): Promise<SourceBuild> => {
    const next = withConditions(build, status, now());
    if (!statusChanged(build.status, next)) return build;
    const patched = await client.patchStatus(build.metadata?.namespace ?? '', build.metadata?.name ?? '', { status: next });
    written.remember(patched, next);
    return patched;
  };

  /** Ends the build: the log's last line and end marker, then the status; retried whole when a step fails. */
  const finish = async (key: string, build: SourceBuild, status: SourceBuildStatus): Promise<void> => {
    let log = logs.get(key);
    if (!log) logs.set(key, (log = new BuildLogWriter(deps.artifacts, build.metadata?.namespace ?? '', build.metadata?.name ?? '')));
    if (status.message && !log.ended) log.write(`[cloudwright] ${status.state === 'Succeeded' ? '' : `${status.reason}: `}${status.message}\n`);
    await log.finish({ state: status.state ?? 'Failed', message: status.message });
    await write(build, { ...status, finishedAt: now().toISOString() });
    logs.delete(key);
    slots.release(key);
    const [namespace, name] = [build.metadata?.namespace ?? '', build.metadata?.name ?? ''];
    // The staged source and output served their purpose; the log stays with the build.
    await Promise.all([deps.artifacts.delete(outputKey(namespace, name)), deps.artifacts.delete(sourceKey(namespace, name))]);
    if (status.state === 'Failed') void deps.events.warning(build, status.reason ?? 'BuildFailed', status.message ?? 'the build failed');
  };

  const trimmed = new TrimmedLogs(deps.log);

  /**
   * A finished build: its log is trimmed once it is past its app's newest, and so are those of its app that are. The
   * status records it (`logTrimmedAt`), so a restart lists no trimmed log again; a crash before that write trims again,
   * finishing what it cut short.
   */
  const trimLogs = async (key: string, build: SourceBuild): Promise<void> => {
    const [namespace, uid] = [build.metadata?.namespace ?? '', build.metadata?.uid ?? ''];
    const past = buildsWithTrimmedLogs(deps.builds.list(namespace), build.spec.app);
    for (const other of past) if (objectKey(other) !== key && !trimmed.has(other)) controller.enqueue(objectKey(other));
    if (trimmed.has(build) || !past.some((b) => b.metadata?.uid === uid)) return;
    const removed = await trimBuildLog(deps.artifacts, namespace, build.metadata?.name ?? '');
    const patched = await write(build, { ...build.status, logTrimmedAt: now().toISOString() });
    trimmed.recorded(patched);
    if (removed > 0) deps.log.info('the log of an older build trimmed to its end', { build: key, bytes: removed });
  };

  /** `resumed`: the build was Building already (an operator restart, or a retry): its run may be going, or over. */
  const start = async (key: string, build: SourceBuild, resumed: boolean): Promise<void> => {
    const [namespace, name] = [build.metadata?.namespace ?? '', build.metadata?.name ?? ''];
    // A run followed or started again writes its log again from the start. Its output stays: a Job that ended
    // while the operator was down has put it there, and is followed only to learn that.
    if (resumed) await deleteBuildLog(deps.artifacts, namespace, name);
    else await deleteBuildObjects(deps.artifacts, namespace, name);
    const log = new BuildLogWriter(deps.artifacts, namespace, name);
    logs.set(key, log);
    log.write(`[cloudwright] building ${build.spec.repository}@${build.spec.commit.slice(0, 12)} (${build.spec.branch}) for ${build.spec.app}\n`);
    // Only the project's own repository: a SourceBuild applied by hand naming another project's is refused.
    const found = projectRepository(deps.repositories, namespace, build.spec.repository);
    if ('missing' in found) throw new SourceUnavailableError(found.missing);
    const repoId = found.repository.status?.repoId;
    if (!build.spec.build?.command) {
      // Nothing of the user's runs: the commit's files are the output, packed by the operator without a sandbox.
      const path = [build.spec.rootDirectory, build.spec.build?.outputDirectory].filter(Boolean).join('/') || undefined;
      log.write(`[cloudwright] no build command: packing ${path ?? 'the repository'} as it is\n`);
      const source = await deps.exporter.export(build.spec.repository, repoId, build.spec.commit, path, { key: outputKey(namespace, name), format: 'tar' });
      await write(build, { ...build.status, message: 'building', commitMessage: source.commitMessage, author: source.author });
      results.set(key, { outcome: 'succeeded' });
      controller.enqueue(key);
      return;
    }
    const source = await deps.exporter.export(build.spec.repository, repoId, build.spec.commit, build.spec.rootDirectory, { key: sourceKey(namespace, name), format: 'tar.gz' });
    const started = await write(build, { ...build.status, message: 'building', commitMessage: source.commitMessage, author: source.author });
    const urlSeconds = urlLifetimeSeconds(deps.limits);
    await deps.runner.run(
      {
        id: runId(started),
        namespace,
        build: name,
        sourceUrl: await deps.urls.presign(source.key, 'GET', urlSeconds),
        outputUrl: await deps.urls.presign(outputKey(namespace, name), 'PUT', urlSeconds),
        command: build.spec.build?.command,
        outputDirectory: build.spec.build?.outputDirectory ?? '.',
        environment: build.spec.environment ?? {},
        limits: deps.limits,
      },
      {
        log: (text) => log.write(text),
        finished: (result) => {
          results.set(key, result);
          controller.enqueue(key);
        },
      },
    );
  };

  /** The run succeeded: its output, packed, becomes a stored Build of the app. */
  const store = async (build: SourceBuild): Promise<SourceBuildStatus> => {
    const [namespace, name] = [build.metadata?.namespace ?? '', build.metadata?.name ?? ''];
    try {
      const packed = await packOpenedOutput(async () => (await deps.artifacts.getStream(outputKey(namespace, name)))?.body);
      if (!packed) return failed(build, 'RunnerFailed', 'the build succeeded but its output is not in the bucket');
      const buildId = await deps.catalog.store(namespace, build.spec.app, Readable.from([packed.bytes]), packed.bytes.length);
      return {
        ...build.status,
        state: 'Succeeded',
        reason: 'Stored',
        message: `built ${packed.kind === 'nextjs' ? 'a Next.js app' : 'a worker'} of ${packed.files === 1 ? '1 file' : `${packed.files} files`} as build ${buildId}`,
        buildId,
      };
    } catch (err) {
      if (err instanceof OutputInvalidError) return failed(build, SourceBuildReasons.OutputInvalid, err.message);
      // The artifact checks, the project's quota: the same refusals an upload gets, said the same way.
      if (err instanceof PublicError && err.status < 500) return failed(build, SourceBuildReasons.OutputInvalid, err.message);
      throw err;
    }
  };

  const controller = new Controller<SourceBuild>({
    name: 'sourcebuild',
    kind: 'SourceBuild',
    source: deps.builds,
    registry: deps.registry,
    log: deps.log,
    workers: 4,
    reconcile: async (key, { namespace }): Promise<Result> => {
      const cached = deps.builds.get(key);
      if (!cached) {
        // Gone without the finalizer's cleanup (a cluster admin let it go): its slot, or its place in the queue,
        // would otherwise be held until the operator restarts, and every project's builds wait behind it.
        written.forget(key);
        slots.release(key);
        void logs.get(key)?.abandon();
        logs.delete(key);
        return;
      }
      let build = written.latest(cached);
      const cleanup = async (b: SourceBuild) => {
        await deps.runner.stop(runId(b));
        slots.release(key);
        const writing = logs.get(key)?.abandon();
        logs.delete(key);
        await writing; // a chunk being uploaded lands before the log is deleted, not after
        await deleteBuildObjects(deps.artifacts, namespace, b.metadata?.name ?? '');
      };
      if (await runFinalizer(client, build, SOURCE_BUILD_FINALIZER, cleanup)) return;
      if (isFinished(build.status?.state)) return trimLogs(key, build);
      build = await addFinalizer(client, build, SOURCE_BUILD_FINALIZER);
      const state = build.status?.state;

      if (build.spec.cancelled) {
        if (state === 'Building') await deps.runner.stop(runId(build));
        const superseded = build.metadata?.annotations?.[SUPERSEDED_BY_ANNOTATION] !== undefined;
        await finish(key, build, {
          ...build.status,
          state: 'Cancelled',
          ...(superseded
            ? { reason: SourceBuildReasons.Superseded, message: 'a newer push to the branch superseded this build' }
            : { reason: SourceBuildReasons.Cancelled, message: 'cancelled by a user: the branch is built again at its next push' }),
        });
        results.delete(key);
        return;
      }
      const result = results.get(key);
      if (result && state === 'Building') {
        const status =
          result.outcome === 'succeeded'
            ? await store(build)
            : result.outcome === 'stopped'
              ? { ...build.status, state: 'Cancelled' as const, reason: 'Stopped', message: 'the build was stopped' }
              : failed(build, result.reason, result.message);
        await finish(key, build, status);
        results.delete(key); // only now: a step above that failed is retried with the result still at hand
        return;
      }
      if (state === 'Building') {
        // Building with no run in this process: the operator restarted. Follow (a Job) or run again (local).
        if (!slots.holds(key)) {
          slots.take(key, accountOf(deps.projects, namespace), true);
          await runOrFail(key, build, true);
        }
        return;
      }
      if (!slots.take(key, accountOf(deps.projects, namespace))) {
        if (!state) await write(build, { state: 'Queued', message: 'waiting for a build slot' });
        return; // a freed slot enqueues the waiting ones
      }
      const building = await write(build, {
        ...build.status,
        state: 'Building',
        message: 'building',
        startedAt: now().toISOString(),
        runner: build.spec.build?.command ? deps.runner.kind : 'none',
        attempts: (build.status?.attempts ?? 0) + 1,
      });
      void deps.events.normal(building, 'Building', `building commit ${build.spec.commit.slice(0, 12)} of ${build.spec.branch}`);
      await runOrFail(key, building, false);
      return;
    },
  });

  const runOrFail = async (key: string, build: SourceBuild, resumed: boolean): Promise<void> => {
    try {
      await start(key, build, resumed);
    } catch (err) {
      if (err instanceof SourceUnavailableError) return finish(key, build, failed(build, SourceBuildReasons.SourceUnavailable, err.message));
      slots.release(key);
      // Counted from the push (the build's creation), as a CI's queued jobs are: an outage shorter than that fails
      // no build, and an operator restart does not start the count again.
      const queuedMs = now().getTime() - Date.parse(build.metadata?.creationTimestamp ?? '');
      if (queuedMs >= startDeadlineMs) {
        await deps.runner.stop(runId(build)).catch(() => {}); // a run followed again after a restart goes with it
        return giveUp(key, build, failed(build, SourceBuildReasons.RunnerFailed, `the build could not start within ${duration(startDeadlineMs)} of its push: ${startFailure(err)}`));
      }
      // Said on the build while it is retried, so a user sees why it is not running (the operator's log has the error).
      await write(build, { ...build.status, message: `could not start yet, retrying: ${startFailure(err)}` }).catch(() => {});
      throw err; // retried with backoff; the run id is the same, so a Job started meanwhile is followed
    }
  };

  /** Ends a build that could not start: as `finish` does, or with its status alone when the bucket refuses its log. */
  const giveUp = async (key: string, build: SourceBuild, status: SourceBuildStatus): Promise<void> => {
    try {
      await finish(key, build, status);
    } catch (err) {
      deps.log.warn('a build that could not start ended without its log', { build: key, err });
      await write(build, { ...status, finishedAt: now().toISOString() });
      void logs.get(key)?.abandon();
      logs.delete(key);
      slots.release(key);
      void deps.events.warning(build, status.reason ?? 'BuildFailed', status.message ?? 'the build failed');
    }
  };
  return controller;
}

/** Whom a build of the project is counted to: the user who created the project, or the project alone when that is not known. */
function accountOf(projects: Informer<Project>, project: string): BuildAccount {
  return { project, user: projectAccount(project, projects.get(project)) };
}

/** `24 h`, `3 s`: a deadline as the message says it. */
function duration(ms: number): string {
  return ms >= 3600_000 ? `${ms / 3600_000} h` : `${ms / 1000} s`;
}

/** Why a start failed, in words safe for a user: which part of the platform refused, never its error (addresses, keys). */
function startFailure(err: unknown): string {
  return err instanceof StoreUnavailableError ? "the platform's object store is unavailable" : "the platform could not start it (the operator's log says why)";
}

function failed(build: SourceBuild, reason: string, message: string): SourceBuildStatus {
  return { ...build.status, state: 'Failed', reason, message: printable(message).slice(0, 1024) };
}

/** Ready: True once Succeeded; False with the reason otherwise (Queued, Building, the failure's). */
function withConditions(build: SourceBuild, status: SourceBuildStatus, at: Date): SourceBuildStatus {
  const succeeded = status.state === 'Succeeded';
  const reason = succeeded ? 'Succeeded' : (status.reason ?? status.state ?? 'Queued');
  const { conditions } = setCondition(status.conditions, { type: 'Ready', status: succeeded ? 'True' : 'False', reason, message: status.message ?? '' }, build.metadata?.generation, at);
  return { ...status, conditions, observedGeneration: build.metadata?.generation };
}
