// What an AppSource wants from its repository's refs: one target per branch it deploys (the production branch
// to the app, each preview branch to its preview app), each with the head commit to build. Pure, so the table
// test says what a push, a new branch, a deleted branch or a force-push leads to.
import { MAX_PREVIEWS_PER_SOURCE, type AppSource } from '../../../src/apis/v1alpha1/app-source.ts';
import { BRANCH_NAME_MAX, BRANCH_NAME_PATTERN } from '../../../src/apis/v1alpha1/repository.ts';
import type { SourceBuildSpec } from '../../../src/apis/v1alpha1/source-build.ts';
import { previewAppName, previewMatcher } from './preview-names.ts';

const HEADS = 'refs/heads/';

export interface Target {
  readonly context: 'production' | 'preview';
  readonly branch: string;
  /** The app it deploys to. */
  readonly app: string;
  /** The branch's head. */
  readonly commit: string;
}

export interface Targets {
  readonly production: Target | undefined;
  readonly previews: readonly Target[];
  /** Preview branches left out past the bound, by name. */
  readonly leftOut: readonly string[];
  /** Preview branches whose names a build cannot carry (git allows more than the API: `fix#1`, `größe`). */
  readonly unnamed: readonly string[];
}

export function productionBranch(source: AppSource): string {
  return source.spec.productionBranch ?? 'main';
}

const BRANCH_NAME = new RegExp(BRANCH_NAME_PATTERN);

/** The targets of `source` given the repository's refs (ref name → oid). */
export function targetsOf(source: AppSource, refs: ReadonlyMap<string, string>): Targets {
  const app = source.spec.app;
  const main = productionBranch(source);
  const head = refs.get(`${HEADS}${main}`);
  const matches = previewMatcher(source.spec.previewBranches);
  const matching = [...refs.keys()]
    .filter((ref) => ref.startsWith(HEADS))
    .map((ref) => ref.slice(HEADS.length))
    .filter((branch) => branch !== main && matches(branch))
    .sort();
  const named: string[] = [];
  const unnamed: string[] = [];
  for (const branch of matching) (branch.length <= BRANCH_NAME_MAX && BRANCH_NAME.test(branch) ? named : unnamed).push(branch);
  const kept = named.slice(0, MAX_PREVIEWS_PER_SOURCE);
  const names = previewNames(kept, app);
  // Two branches still on one app (their hashes meet): neither gets a preview, rather than both deploying to it.
  const clashes = (i: number) => names.indexOf(names[i]!) !== names.lastIndexOf(names[i]!);
  return {
    production: head === undefined ? undefined : { context: 'production', branch: main, app, commit: head },
    previews: kept.flatMap((branch, i) => (clashes(i) ? [] : [{ context: 'preview' as const, branch, app: names[i]!, commit: refs.get(`${HEADS}${branch}`) ?? '' }])),
    leftOut: [...kept.filter((_, i) => clashes(i)), ...named.slice(MAX_PREVIEWS_PER_SOURCE)],
    unnamed,
  };
}

/**
 * The preview app of each branch: branches whose names meet (`fix/a` and `fix-a`; or a branch named like another's
 * hashed name, `fix-a-bd4be5`) each get a hashed name, again until none meet, so no two branches deploy to one app.
 */
function previewNames(branches: readonly string[], app: string): string[] {
  const hashed = new Set<string>();
  let names = branches.map((branch) => previewAppName(branch, app));
  for (let round = 0; round < 3; round++) {
    const meeting = branches.filter((_, i) => names.indexOf(names[i]!) !== names.lastIndexOf(names[i]!) && !hashed.has(branches[i]!));
    if (meeting.length === 0) break;
    for (const branch of meeting) hashed.add(branch);
    names = branches.map((branch) => previewAppName(branch, app, hashed.has(branch)));
  }
  return names;
}

/** The SourceBuild of a target: `<app>-<first 12 hex digits of the commit>`. */
export function buildName(target: Pick<Target, 'app' | 'commit'>): string {
  return `${target.app}-${target.commit.slice(0, 12)}`;
}

/** The SourceBuild spec of `target`, with the settings and environment of the source and app as they are now. */
export function buildSpec(source: AppSource, target: Target, appEnvironment: Readonly<Record<string, string>> | undefined): SourceBuildSpec {
  const context = source.spec.environment?.[target.context];
  const environment = { ...appEnvironment, ...context };
  const { owner, name } = source.spec.repository;
  return {
    app: target.app,
    source: source.metadata?.name ?? source.spec.app,
    context: target.context,
    repository: `${owner}/${name}`,
    branch: target.branch,
    commit: target.commit,
    ...(source.spec.rootDirectory ? { rootDirectory: source.spec.rootDirectory } : {}),
    ...(source.spec.build ? { build: source.spec.build } : {}),
    ...(Object.keys(environment).length > 0 ? { environment } : {}),
  };
}
