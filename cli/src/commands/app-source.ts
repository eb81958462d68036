// `cw apps connect | disconnect | source`: an app's repository connection (push to deploy).
import type { Command } from 'commander';
import { act, choiceOption, confirmOrExit, examples, listOption, withJson, withYes } from '../command-kit.ts';
import type { Context } from '../context.ts';
import { ApiError, UsageError } from '../errors.ts';
import { ago, note, paint, printFields, printJson, printTable, success } from '../output.ts';

type SourceView = Awaited<ReturnType<typeof getSource>>;

interface ConnectOptions {
  repo: string;
  branch?: string;
  previewBranches?: string[];
  previews: boolean;
  root?: string;
  buildCommand?: string;
  outputDir?: string;
  previewDatabases?: 'none' | 'fork';
}

export function registerAppSource(apps: Command): void {
  examples(
    act(
      withJson(
        apps
          .command('connect')
          .argument('<app>', 'app id')
          .description(
            'Connect an app to one of the project’s repositories: each push to the production branch is built and deployed, other branches get preview apps. Run again to change the settings (those not given go back to their defaults; the environment per context is kept)',
          )
          .requiredOption('--repo <owner/name>', 'the repository on the platform’s git service')
          .option('--branch <branch>', 'the production branch (default main)')
          .option('--preview-branches <patterns>', 'comma-separated patterns of the branches that get previews, * matching anything (default: every branch)', listOption)
          .option('--no-previews', 'no previews: only the production branch deploys')
          .option('--root <dir>', 'where the app lives in the repository (default: its root)')
          .option('--build-command <cmd>', 'the build, run in the root directory (for example "npm ci && npm run build"); default: none, the directory is deployed as it is')
          .option('--output-dir <dir>', 'what the build leaves to deploy, relative to the root directory (default: the root directory)')
          .option(
            '--preview-databases <none|fork>',
            'fork: each preview gets its own copy of the databases the app links, taken when it is created (default none: previews link no database)',
            choiceOption(['none', 'fork'] as const),
          ),
      ),
      connect,
    ),
    [
      'cw apps connect web --repo shop/site',
      'cw apps connect web --repo shop/site --branch release --preview-branches "feature/*,fix/*"',
      'cw apps connect web --repo shop/site --no-previews --build-command "npm ci && npm run build" --output-dir dist',
      'cw apps connect web --repo shop/site --preview-databases fork',
    ],
  );
  examples(
    act(
      withYes(apps.command('disconnect').argument('<app>', 'app id').description('Disconnect an app from its repository: pushes stop deploying and its previews are deleted; the app keeps serving')),
      disconnect,
    ),
    ['cw apps disconnect web', 'cw apps disconnect web --yes'],
  );
  examples(act(withJson(apps.command('source').argument('<app>', 'app id').description('Show an app’s repository connection: production and each preview, with their hosts and commits')), show), [
    'cw apps source web',
    'cw apps source web --json',
  ]);
}

async function getSource(ctx: Context, projectId: string, appId: string) {
  return (await ctx.ok(ctx.api.GET('/v1/projects/{projectId}/apps/{appId}/source', { params: { path: { projectId, appId } } }))).source;
}

async function connect(ctx: Context, appId: string, options: ConnectOptions): Promise<void> {
  if (!options.previews && options.previewBranches) throw new UsageError('give --preview-branches or --no-previews, not both');
  const projectId = await ctx.project();
  // The environment per context has no flags: a connection changed from here keeps the one it has.
  let environment: SourceView['environment'] | undefined;
  try {
    environment = (await getSource(ctx, projectId, appId)).environment;
  } catch (err) {
    if (!(err instanceof ApiError && err.status === 404)) throw err;
  }
  const previewBranches = options.previews ? options.previewBranches : [];
  const answer = await ctx.ok(
    ctx.api.PUT('/v1/projects/{projectId}/apps/{appId}/source', {
      params: { path: { projectId, appId } },
      body: {
        repository: options.repo,
        ...(options.branch ? { production_branch: options.branch } : {}),
        ...(previewBranches ? { preview_branches: previewBranches } : {}),
        ...(options.root ? { root_directory: options.root } : {}),
        ...(options.buildCommand ? { build_command: options.buildCommand } : {}),
        ...(options.outputDir ? { output_directory: options.outputDir } : {}),
        ...(options.previewDatabases ? { preview_databases: options.previewDatabases } : {}),
        ...(environment ? { environment } : {}),
      },
    }),
  );
  if (ctx.json) return printJson(answer);
  const { source } = answer;
  success(`Connected app ${appId} to ${source.repository}: pushes to ${source.production_branch} deploy it`);
  note(previewsLine(source.preview_branches));
  note(`Follow it with \`cw apps source ${appId}\` and \`cw builds ls ${appId}\`.`);
}

function previewsLine(patterns: readonly string[]): string {
  if (patterns.length === 0) return 'Previews: none.';
  if (patterns.length === 1 && patterns[0] === '*') return 'Previews: every other branch gets one.';
  return `Previews: branches matching ${patterns.join(', ')}.`;
}

async function disconnect(ctx: Context, appId: string): Promise<void> {
  const projectId = await ctx.project();
  await confirmOrExit(ctx, `Disconnect app ${appId} of ${projectId} from its repository and delete its previews?`);
  await ctx.ok(ctx.api.DELETE('/v1/projects/{projectId}/apps/{appId}/source', { params: { path: { projectId, appId } } }));
  success(`Disconnected app ${appId}: pushes no longer deploy it, its previews are being deleted; it keeps serving its build`);
}

async function show(ctx: Context, appId: string): Promise<void> {
  const projectId = await ctx.project();
  const source = await getSource(ctx, projectId, appId);
  if (ctx.json) return printJson({ source });
  const stateColour = source.state === 'ready' ? 'green' : source.state === 'failed' ? 'red' : 'yellow';
  printFields([
    ['App', source.app_id],
    ['Repository', source.repository],
    ['State', `${paint(stateColour, source.state)}${source.reason ? ` (${source.reason})` : ''}`],
    ['Message', source.message],
    ['Production branch', source.production_branch],
    ['Preview branches', source.preview_branches.length === 0 ? 'none' : source.preview_branches.join(', ')],
    ['Root directory', source.root_directory],
    ['Build command', source.build_command],
    ['Output directory', source.output_directory],
    ['Preview databases', source.preview_databases === 'fork' ? 'a copy of each linked database per preview' : 'none'],
    ['Connected', `${source.created_at} (${ago(source.created_at)})`],
  ]);
  const rows = [...(source.production ? [{ ...source.production, kind: 'production' }] : []), ...source.previews.map((p) => ({ ...p, kind: 'preview' }))];
  printTable(
    ['', 'BRANCH', 'APP', 'HOST', 'SERVES', 'HEAD', 'NOTE'],
    rows.map((d) => [
      d.kind,
      d.branch,
      d.app_id,
      d.host,
      short(d.deployed_commit),
      short(d.commit),
      [d.databases?.length ? `databases ${d.databases.join(', ')}` : undefined, d.message].filter(Boolean).join('; '),
    ]),
    'Nothing deployed from it yet: push to the production branch.',
  );
}

/** A commit as git shows it in one line. */
export function short(commit: string | undefined): string | undefined {
  return commit?.slice(0, 12);
}
