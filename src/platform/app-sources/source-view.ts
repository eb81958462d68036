// How the REST API shows an AppSource and its SourceBuilds: snake_case, the spec's defaults filled in, the
// status's conditions summed up as one state with its reason and message (as the other views do).
import { AppSourceConditions, AppSourceReasons, type AppSource, type SourceDeployment } from '../../apis/v1alpha1/app-source.ts';
import type { SourceBuild, SourceBuildState } from '../../apis/v1alpha1/source-build.ts';
import { findCondition } from '../../conditions/index.ts';

/** What `preview_branches` shows for a source that leaves them out: every branch. */
export const EVERY_BRANCH = ['*'];
export const DEFAULT_PRODUCTION_BRANCH = 'main';

/** One branch and what its app serves. */
export interface SourceDeploymentView {
  branch: string;
  app_id: string;
  host?: string;
  commit?: string;
  source_build_id?: string;
  deployed_commit?: string;
  deployed_build_id?: string;
  deployed_at?: string;
  message?: string;
  databases?: string[];
}

export type SourceState = 'pending' | 'ready' | 'failed';

export interface SourceView {
  app_id: string;
  /** `owner/name`. */
  repository: string;
  production_branch: string;
  preview_branches: string[];
  root_directory?: string;
  build_command?: string;
  output_directory?: string;
  environment: { production: Record<string, string>; preview: Record<string, string> };
  preview_databases: 'none' | 'fork';
  /** pending until the operator has read the repository and deployed the production branch's head. */
  state: SourceState;
  reason?: string;
  message?: string;
  production?: SourceDeploymentView;
  previews: SourceDeploymentView[];
  created_at: string;
}

/** Reasons of the Ready condition that mean "working on it" or "waiting for a push", not a failure. */
const PENDING_REASONS = new Set<string>([AppSourceReasons.Building, AppSourceReasons.BranchNotFound]);

export function sourceView(source: AppSource): SourceView {
  const { spec, status } = source;
  const generation = source.metadata?.generation ?? 0;
  // A condition computed for an earlier generation says nothing about the spec just written.
  const fresh = (type: string) => {
    const found = findCondition(status?.conditions, type);
    return found && (found.observedGeneration ?? status?.observedGeneration ?? 0) >= generation ? found : undefined;
  };
  const repository = fresh(AppSourceConditions.RepositoryReady);
  const ready = fresh(AppSourceConditions.Ready);
  let state: SourceState = 'pending';
  let why = ready;
  if (repository?.status === 'False') {
    state = 'failed';
    why = repository;
  } else if (ready?.status === 'True') state = 'ready';
  else if (ready?.status === 'False' && !PENDING_REASONS.has(ready.reason ?? '')) state = 'failed';
  return {
    app_id: spec.app,
    repository: `${spec.repository.owner}/${spec.repository.name}`,
    production_branch: spec.productionBranch ?? DEFAULT_PRODUCTION_BRANCH,
    preview_branches: spec.previewBranches ?? EVERY_BRANCH,
    ...(spec.rootDirectory ? { root_directory: spec.rootDirectory } : {}),
    ...(spec.build?.command ? { build_command: spec.build.command } : {}),
    ...(spec.build?.outputDirectory ? { output_directory: spec.build.outputDirectory } : {}),
    environment: { production: spec.environment?.production ?? {}, preview: spec.environment?.preview ?? {} },
    preview_databases: spec.previewDatabases === 'Fork' ? 'fork' : 'none',
    state,
    ...(why?.reason ? { reason: why.reason } : {}),
    ...(why?.message ? { message: why.message } : {}),
    ...(status?.production ? { production: deploymentView(status.production) } : {}),
    previews: (status?.previews ?? []).map(deploymentView),
    created_at: source.metadata?.creationTimestamp ?? '',
  };
}

function deploymentView(d: SourceDeployment): SourceDeploymentView {
  return {
    branch: d.branch,
    app_id: d.app,
    ...(d.host ? { host: d.host } : {}),
    ...(d.commit ? { commit: d.commit } : {}),
    ...(d.build ? { source_build_id: d.build } : {}),
    ...(d.deployedCommit ? { deployed_commit: d.deployedCommit } : {}),
    ...(d.deployedBuildId ? { deployed_build_id: d.deployedBuildId } : {}),
    ...(d.deployedAt ? { deployed_at: d.deployedAt } : {}),
    ...(d.message ? { message: d.message } : {}),
    ...(d.databases?.length ? { databases: d.databases } : {}),
  };
}

export type BuildStateView = 'queued' | 'building' | 'succeeded' | 'failed' | 'cancelled';

export interface SourceBuildView {
  source_build_id: string;
  app_id: string;
  context: 'production' | 'preview';
  repository: string;
  branch: string;
  commit: string;
  state: BuildStateView;
  /** A cancel was asked for (by a newer push or a user); the state says whether it took effect yet. */
  cancel_requested: boolean;
  reason?: string;
  message?: string;
  commit_message?: string;
  author?: string;
  created_at: string;
  started_at?: string;
  finished_at?: string;
  /** The Build the artifact became (succeeded). */
  build_id?: string;
}

/** The states after which nothing changes (no cancel, the log is complete). */
export function isFinished(state: SourceBuildState | undefined): boolean {
  return state === 'Succeeded' || state === 'Failed' || state === 'Cancelled';
}

export function sourceBuildView(build: SourceBuild): SourceBuildView {
  const { spec, status } = build;
  return {
    source_build_id: build.metadata?.name ?? '',
    app_id: spec.app,
    context: spec.context,
    repository: spec.repository,
    branch: spec.branch,
    commit: spec.commit,
    state: (status?.state ?? 'Queued').toLowerCase() as BuildStateView,
    cancel_requested: spec.cancelled === true,
    ...(status?.reason ? { reason: status.reason } : {}),
    ...(status?.message ? { message: status.message } : {}),
    ...(status?.commitMessage ? { commit_message: status.commitMessage } : {}),
    ...(status?.author ? { author: status.author } : {}),
    created_at: build.metadata?.creationTimestamp ?? '',
    ...(status?.startedAt ? { started_at: status.startedAt } : {}),
    ...(status?.finishedAt ? { finished_at: status.finishedAt } : {}),
    ...(status?.buildId ? { build_id: status.buildId } : {}),
  };
}
