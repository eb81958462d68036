// Push to deploy in the operator: the AppSource controller (refs → SourceBuilds → deploys and previews) and the
// SourceBuild controller (runs each build), on the repositories' bucket for sources and the artifact bucket for
// builds, logs and artifacts.
import { join } from 'node:path';
import type { AppSource } from '../src/apis/v1alpha1/app-source.ts';
import type { Build } from '../src/apis/v1alpha1/build.ts';
import type { Database } from '../src/apis/v1alpha1/database.ts';
import type { Project } from '../src/apis/v1alpha1/project.ts';
import type { Repository } from '../src/apis/v1alpha1/repository.ts';
import type { RuntimeApp } from '../src/apis/v1alpha1/runtime-app.ts';
import type { SourceBuild } from '../src/apis/v1alpha1/source-build.ts';
import type { EventRecorder } from '../src/controller-runtime/events.ts';
import type { Manager } from '../src/controller-runtime/manager.ts';
import type { KubeConnection } from '../src/kube/index.ts';
import type { ObjectStore } from '../src/object-store/object-store.ts';
import type { S3Config } from '../src/object-store/s3-config.ts';
import { S3UrlSigner } from '../src/object-store/s3-presigned-urls.ts';
import { AppStore } from '../src/platform/app-store.ts';
import { BuildCatalog } from '../src/platform/builds.ts';
import { LocalBuildRunner } from './controllers/source-build/local-runner.ts';
import { APP_SOURCES, BUILDS, DATABASES, PROJECTS, REPOSITORIES, RUNTIME_APPS, SOURCE_BUILDS } from '../src/platform/resources.ts';
import type { RepoStore } from '../src/repo-store/repo-store.ts';
import type { BuildSettings } from './build-env.ts';
import { appSourceController } from './controllers/app-source/controller.ts';
import type { BuildRunner } from './controllers/source-build/build-runner.ts';
import { sourceBuildController } from './controllers/source-build/controller.ts';
import { StagedObjectSweep } from './controllers/source-build/staged-object-sweep.ts';
import { runnerFor } from './controllers/source-build/runner-for.ts';
import { SourceExporter } from './controllers/source-build/source-export.ts';

export interface PushToDeployOptions {
  readonly manager: Manager;
  readonly kube: KubeConnection;
  readonly events: EventRecorder;
  readonly settings: BuildSettings;
  readonly repos: RepoStore;
  readonly artifacts: ObjectStore;
  readonly artifactBucket: { readonly bucket: string; readonly s3: S3Config };
  /** What a project's stored builds may take (CW_PROJECT_STORED_BUILDS_QUOTA), checked as a build is stored. */
  readonly projectStoredBuildsQuota: number;
  readonly baseDomain: string;
  readonly scope: { namespace?: string };
  /** The cluster's runner (a Job per build), required with `settings.runner === 'job'` (runner-for.ts). */
  readonly jobRunner?: () => BuildRunner;
}

export function addPushToDeploy(options: PushToDeployOptions): void {
  const { manager, kube, events, settings, scope } = options;
  const common = { kube, events, registry: manager.registry };
  const apps = manager.informer<RuntimeApp>(RUNTIME_APPS, scope);
  const store = new AppStore(kube, apps, manager.informer<Build>(BUILDS, scope));
  // servedRecordWaitMs 0: a controller worker does not wait on another controller (builds come minutes apart).
  const catalog = new BuildCatalog(store, {
    baseDomain: options.baseDomain,
    artifacts: options.artifacts,
    projectUnpackedQuota: settings.projectUnpackedQuota,
    projectStoredBuildsQuota: options.projectStoredBuildsQuota,
    servedRecordWaitMs: 0,
  });
  const builds = manager.informer<SourceBuild>(SOURCE_BUILDS, scope);
  const repositories = manager.informer<Repository>(REPOSITORIES, scope);
  const runner = runnerFor(settings, options.jobRunner);
  if (runner instanceof LocalBuildRunner && !runner.contained) {
    manager.log.warn('builds run as local processes without a PID namespace of their own (unshare failed): a process a build detaches with setsid outlives it');
  }
  manager.add(
    appSourceController({
      ...common,
      sources: manager.informer<AppSource>(APP_SOURCES, scope),
      builds,
      apps,
      repositories,
      databases: manager.informer<Database>(DATABASES, scope),
      repos: options.repos,
      catalog,
      baseDomain: options.baseDomain,
      previewGraceMs: settings.previewGraceMs,
      resyncMs: settings.resyncMs,
      log: manager.log.child({ controller: 'appsource' }),
    }),
  );
  manager.add(
    sourceBuildController({
      ...common,
      builds,
      repositories,
      projects: manager.informer<Project>(PROJECTS),
      runner,
      exporter: new SourceExporter({ repos: options.repos, artifacts: options.artifacts, workDir: join(settings.workDir, 'sources'), limits: settings.sources }),
      artifacts: options.artifacts,
      urls: new S3UrlSigner({ config: options.artifactBucket.s3, bucket: options.artifactBucket.bucket }),
      catalog,
      limits: settings.limits,
      concurrency: settings.concurrency,
      log: manager.log.child({ controller: 'sourcebuild' }),
    }),
  );
  manager.add(new StagedObjectSweep({ builds, ...scope, artifacts: options.artifacts, log: manager.log.child({ controller: 'sourcebuild-staged-objects' }) }));
  manager.log.info('push to deploy: building connected repositories', { runner: runner.kind, ...settings.limits, ...settings.concurrency });
}
