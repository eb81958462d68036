// `cw builds`: the builds made from an app's repository (push to deploy), their logs, and cancelling one.
import type { Command } from 'commander';
import { EventSourceParserStream } from 'eventsource-parser/stream';
import { act, examples, withJson } from '../command-kit.ts';
import type { Context } from '../context.ts';
import { CliError } from '../errors.ts';
import { ago, note, paint, printJson, printTable, success, terminalSafe } from '../output.ts';
import { short } from './app-source.ts';

export interface SourceBuildListOptions {
  branch?: string;
  limit?: number;
}

/** `cw builds logs` and `cw builds cancel`, beside `cw builds ls` (commands/deploy.ts). */
export function registerBuilds(program: Command): void {
  // The group and its `ls` (uploaded builds, or with an app argument these) are registered with `cw deploy`.
  const builds = program.commands.find((c) => c.name() === 'builds');
  if (!builds) throw new Error('cw builds is registered by registerDeploy, which must run first');
  examples(
    act(
      builds
        .command('logs')
        .argument('<app>', 'app id')
        .argument('<build>', 'build id, as `cw builds ls` shows it')
        .description('Print a build’s log; with --follow, follow it until the build ends (exit 1 when it failed or was cancelled)')
        .option('-f, --follow', 'keep printing as the build runs, until it ends'),
      logs,
    ),
    ['cw builds logs web web-3f1c9a0b7d2e', 'cw builds logs web web-3f1c9a0b7d2e --follow'],
  );
  examples(act(withJson(builds.command('cancel').argument('<app>', 'app id').argument('<build>', 'build id').description('Cancel a queued or running build (the app keeps what it serves)')), cancel), [
    'cw builds cancel web web-3f1c9a0b7d2e',
  ]);
}

const STATE_COLOURS = { succeeded: 'green', failed: 'red', cancelled: 'dim', building: 'yellow', queued: 'yellow' } as const;

/** `cw builds ls APP`: the builds made from the app's repository, its previews' too. */
export async function listSourceBuilds(ctx: Context, appId: string, options: SourceBuildListOptions): Promise<void> {
  const projectId = await ctx.project();
  const query = { ...(options.branch ? { branch: options.branch } : {}), ...(options.limit ? { limit: options.limit } : {}) };
  const answer = await ctx.ok(ctx.api.GET('/v1/projects/{projectId}/apps/{appId}/source-builds', { params: { path: { projectId, appId }, query } }));
  if (ctx.json) return printJson(answer);
  printTable(
    ['BUILD', 'APP', 'BRANCH', 'COMMIT', 'STATE', 'CREATED', 'MESSAGE'],
    answer.builds.map((b) => [b.source_build_id, b.app_id, b.branch, short(b.commit), paint(STATE_COLOURS[b.state], b.state), ago(b.created_at), b.message ?? b.commit_message]),
    `No builds of ${appId} yet: connect it with \`cw apps connect ${appId} --repo OWNER/NAME\`, then push.`,
  );
  if (answer.next) note(`More builds: pass --limit (up to 100).`);
}

/**
 * A piece of a build's log as this terminal is given it. The build's command is whatever was pushed, so on a terminal
 * its control characters are shown as text (`terminalSafe`: no escape sequence sets the title or rewrites what is on
 * the screen); piped or redirected, the log is written as it is (review-162 F5).
 */
export function buildLogText(text: string, terminal = process.stdout.isTTY === true): string {
  return terminal ? terminalSafe(text.replace(/\r\n/g, '\n'), '') : text;
}

async function logs(ctx: Context, appId: string, build: string, options: { follow?: boolean }): Promise<void> {
  const projectId = await ctx.project();
  const params = { path: { projectId, appId, build } };
  if (!options.follow) {
    const text = await ctx.ok(ctx.api.GET('/v1/projects/{projectId}/apps/{appId}/source-builds/{build}/logs', { params: { ...params, query: { follow: 'false' } }, parseAs: 'text' }));
    // An empty log is answered with Content-Length 0, which the client gives as no text at all.
    if (text) process.stdout.write(buildLogText(text));
    return;
  }
  const body = await ctx.ok(ctx.api.GET('/v1/projects/{projectId}/apps/{appId}/source-builds/{build}/logs', { params: { ...params, query: { follow: 'true' } }, parseAs: 'stream' }));
  if (!body) throw new CliError('the API answered without a log stream');
  const events = body.pipeThrough(new TextDecoderStream()).pipeThrough(new EventSourceParserStream());
  for await (const message of events) {
    if (message.event === 'log') process.stdout.write(buildLogText((JSON.parse(message.data) as { text: string }).text));
    else if (message.event === 'dropped') {
      const { count } = JSON.parse(message.data) as { count: number };
      note(`${paint('yellow', '!', process.stderr)} ${count} part${count === 1 ? '' : 's'} of the log skipped: this terminal read more slowly than the build wrote`);
    } else if (message.event === 'end') {
      const end = JSON.parse(message.data) as { state: string; message?: string };
      if (end.state === 'succeeded') {
        note(`Build ${build} succeeded${end.message ? `: ${end.message}` : ''}`);
        return;
      }
      throw new CliError(`build ${build} ${end.state}${end.message ? `: ${end.message}` : ''}`);
    }
  }
  throw new CliError(`the log stream of ${build} ended before the build did (the API restarted?); run \`cw builds logs ${appId} ${build} --follow\` again`);
}

async function cancel(ctx: Context, appId: string, build: string): Promise<void> {
  const projectId = await ctx.project();
  const answer = await ctx.ok(ctx.api.POST('/v1/projects/{projectId}/apps/{appId}/source-builds/{build}/cancel', { params: { path: { projectId, appId, build } } }));
  if (ctx.json) return printJson(answer);
  success(`Cancel asked for build ${build} (${answer.build.state} now); the app keeps what it serves`);
}
