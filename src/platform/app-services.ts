import type { AppHostname } from '../apis/v1alpha1/app-hostname.ts';
import type { Build } from '../apis/v1alpha1/build.ts';
import type { Database } from '../apis/v1alpha1/database.ts';
import type { ProjectDomain } from '../apis/v1alpha1/project-domain.ts';
import type { RuntimeApp } from '../apis/v1alpha1/runtime-app.ts';
import type { AppSource } from '../apis/v1alpha1/app-source.ts';
import type { Repository } from '../apis/v1alpha1/repository.ts';
import type { SourceBuild } from '../apis/v1alpha1/source-build.ts';
import type { InformerFactory, KubeConnection } from '../kube/index.ts';
import type { ObjectStore } from '../object-store/object-store.ts';
import type { ArtifactLimits } from '../app-artifacts/artifact.ts';
import { AppDatabaseBindings } from './app-database-bindings.ts';
import { AppEnvironment } from './app-environment.ts';
import { AppStore } from './app-store.ts';
import { AppDirectory } from './apps.ts';
import { BuildCatalog } from './builds.ts';
import { hostnamesByName } from './domains/domain-store.ts';
import { factsFromObjects } from './host-admission.ts';
import { APP_HOSTNAMES, APP_SOURCES, BUILDS, DATABASES, PROJECT_DOMAINS, REPOSITORIES, RUNTIME_APPS, SOURCE_BUILDS } from './resources.ts';
import { AppSources } from './app-sources/app-sources.ts';

/** The runtime's base domain when none is configured (`CW_RUNTIME_BASE_DOMAIN`). */
export const DEFAULT_RUNTIME_BASE_DOMAIN = 'apps.localhost';

export interface AppServicesOptions {
  /** Where build artifacts are stored (CW_S3_*); without one the routes that need it answer 503. */
  readonly artifacts: ObjectStore | undefined;
  /** The runtime's base domain: default hosts are `<appId>.<project>.<baseDomain>`. */
  readonly baseDomain?: string;
  readonly limits?: Partial<ArtifactLimits>;
  readonly maxCompatibilityDate?: string | undefined;
  /** What a project's apps' active builds may unpack to together (default `DEFAULT_PROJECT_UNPACKED_QUOTA`). */
  readonly projectUnpackedQuota?: number | undefined;
  /** What a project's stored builds may take together (default `DEFAULT_PROJECT_STORED_BUILDS_QUOTA`). */
  readonly projectStoredBuildsQuota?: number | undefined;
  /** How long deleting an app waits for it to be gone, its artifacts deleted by the operator (default 10 s). */
  readonly deleteAnswerWithinMs?: number | undefined;
}

export interface AppServices {
  apps: AppDirectory;
  builds: BuildCatalog;
  environment: AppEnvironment;
  /** Apps' database bindings (a URL and a rotated token per binding, as `databaseEnvironment` entries). */
  databaseBindings: AppDatabaseBindings;
  /** Repositories connected to apps, and the builds made from them. */
  sources: AppSources;
}

/**
 * The app, build and environment services on shared RuntimeApp and Build caches. Call before
 * `informers.start()` so the caches start (and are waited for) with the others.
 */
export function createAppServices(conn: KubeConnection, informers: InformerFactory, options: AppServicesOptions): AppServices {
  const store = new AppStore(conn, informers.informer<RuntimeApp>(RUNTIME_APPS), informers.informer<Build>(BUILDS));
  // Host names are compared in lowercase, as the runtime routes them.
  const baseDomain = (options.baseDomain ?? DEFAULT_RUNTIME_BASE_DOMAIN).toLowerCase();
  const domains = informers.informer<ProjectDomain>(PROJECT_DOMAINS);
  const hostnames = informers.informer<AppHostname>(APP_HOSTNAMES);
  const databases = informers.informer<Database>(DATABASES);
  const hostnamesNamed = hostnamesByName(hostnames);
  /** The app's AppHostnames (cache) that are not being deleted. */
  const bindingsOf = (project: string, appId: string) => hostnames.list(project).filter((h) => h.metadata?.namespace === project && h.spec.appRef.name === appId && !h.metadata?.deletionTimestamp);
  const finalized = (project: string, appId: string) =>
    bindingsOf(project, appId)
      .filter((h) => h.status?.state === 'active')
      .map((h) => h.spec.hostname);
  const sources = new AppSources(conn, store, {
    sources: informers.informer<AppSource>(APP_SOURCES),
    builds: informers.informer<SourceBuild>(SOURCE_BUILDS),
    repositories: informers.informer<Repository>(REPOSITORIES),
  });
  return {
    apps: new AppDirectory(conn, store, {
      baseDomain,
      artifacts: options.artifacts,
      attachedHostnames: finalized,
      deleteAnswerWithinMs: options.deleteAnswerWithinMs,
      sourceSummary: (project, appId) => sources.summaryOf(project, appId),
    }),
    builds: new BuildCatalog(store, {
      baseDomain,
      artifacts: options.artifacts,
      ...(options.limits ? { limits: options.limits } : {}),
      ...(options.projectUnpackedQuota !== undefined ? { projectUnpackedQuota: options.projectUnpackedQuota } : {}),
      ...(options.projectStoredBuildsQuota !== undefined ? { projectStoredBuildsQuota: options.projectStoredBuildsQuota } : {}),
      maxCompatibilityDate: options.maxCompatibilityDate,
      nameFacts: () => factsFromObjects(domains.list(), hostnamesNamed, baseDomain, new Date()),
      finalizedHostnames: finalized,
    }),
    // A variable linked to a database names one of the project's (the shared Database cache).
    environment: new AppEnvironment(store, (project, name) => databases.get(`${project}/${name}`)),
    databaseBindings: new AppDatabaseBindings(store, (project, name) => databases.get(`${project}/${name}`)),
    sources,
  };
}
