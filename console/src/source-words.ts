// Push to deploy in words a person acts on: the source's reasons (its RepositoryReady and Ready conditions, as
// the API sums them up), the builds' failure reasons (docs/push-to-deploy.md, "Builds, logs and failures"), and
// the small formats the source pages share.
import type { paths } from './api/schema.ts';

type SourcePath = paths['/v1/projects/{projectId}/apps/{appId}/source'];
type BuildPath = paths['/v1/projects/{projectId}/apps/{appId}/source-builds/{build}'];
/** An app's connection to its repository, as `GET …/source` answers it. */
export type SourceView = SourcePath['get']['responses'][200]['content']['application/json']['source'];
/** One branch and what its app serves. */
export type SourceDeployment = NonNullable<SourceView['production']>;
/** One source build, as `GET …/source-builds/{build}` answers it. */
export type SourceBuild = BuildPath['get']['responses'][200]['content']['application/json']['build'];
/** The ids every source page is under. */
export interface AppPath {
  projectId: string;
  appId: string;
}

/** Why the source is where it is: the reason the API gives, explained. */
export const SOURCE_REASONS: Record<string, string> = {
  RepositoryNotFound: 'The repository is not ready in this project: a project’s repositories are named <project id>/<name>; check the name, or create the repository.',
  RepositoryUnavailable: 'The repository could not be read just now; the platform tries again.',
  AppNotFound: 'The app this source deploys to is gone.',
  BranchNotFound: 'The production branch has no commit yet: push it to deploy.',
  Building: 'The production branch’s newest commit is being built; the app serves its previous build meanwhile.',
  BuildFailed: 'The production branch’s newest commit failed to build; the app keeps serving its previous build. See the build’s log.',
  BuildCancelled: 'The build of the production branch’s newest commit was cancelled; the app keeps serving its previous build until the next push.',
  DeployFailed: 'The build succeeded but its deploy was refused; the app keeps serving its previous build.',
  Deployed: 'The production branch’s newest commit is built and served.',
};

/** What the source's state means, before its reason. */
export const SOURCE_STATES: Record<string, string> = {
  ready: 'Deployed',
  pending: 'Pending',
  failed: 'Failed',
};

/** A build's failure reason, explained. */
export const BUILD_REASONS: Record<string, string> = {
  CommandFailed: 'the build command exited non-zero',
  DeadlineExceeded: 'the build ran longer than its deadline',
  ResourceLimitExceeded: 'the build used more memory or disk than its bound',
  OutputInvalid: 'the output is not a worker or an OpenNext build, or was refused',
  SourceUnavailable: 'the commit or the root directory is not in the repository',
  RunnerFailed: 'the build could not be run',
  Superseded: 'a newer push to the branch came first',
  Cancelled: 'a user cancelled it; the branch is built again at its next push',
};

/** The builds that may still change (a cancel applies, the log grows). */
export function isRunning(state: string): boolean {
  return state === 'queued' || state === 'building';
}

/** A commit as git shows it short. */
export function shortOid(commit: string | undefined): string {
  return commit ? commit.slice(0, 7) : '—';
}

/** How long a build ran (so far, while it runs): `1 min 5 s`, `42 s`. */
export function duration(startedAt: string | undefined, finishedAt: string | undefined, now = Date.now()): string {
  if (!startedAt) return '';
  const seconds = Math.max(0, Math.round(((finishedAt ? Date.parse(finishedAt) : now) - Date.parse(startedAt)) / 1000));
  return seconds >= 60 ? `${Math.floor(seconds / 60)} min ${seconds % 60} s` : `${seconds} s`;
}
