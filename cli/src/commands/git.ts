// `cw git`: the project's tokens for the repository service, and git's credential helper on top of them.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { type Command } from 'commander';
import { act, choiceOption, confirmOrExit, examples, intOption, withJson, withYes } from '../command-kit.ts';
import { updateServer } from '../config.ts';
import type { Context } from '../context.ts';
import { CliError } from '../errors.ts';
import { shellQuote } from '../git-credential.ts';
import { ago, note, paint, printJson, printTable, println, success } from '../output.ts';
import { credentialHelper, gitUrlOf } from './git-credentials.ts';

const GIT_SCOPES = ['read', 'write'] as const;

export function registerGit(program: Command): void {
  const git = program.command('git').description('Git access to the project’s repositories: tokens, and a credential helper for git');
  const token = git.command('token').alias('tokens').description('Make, list and revoke the project’s git tokens');
  examples(
    act(
      withJson(
        token
          .command('create')
          .option('--scope <scope>', 'read (clone, fetch) or write (also push)', choiceOption(GIT_SCOPES), 'write')
          .option('--description <text>', 'what the token is for', 'created with cw')
          .option('--expires-in-days <days>', 'expire after this many days (default: never, or when your own token does)', intOption(1, 366))
          .description('Make a git token and print it (once: it cannot be shown again)'),
      ),
      create,
    ),
    ['cw git token create --scope read --description "CI clone" --expires-in-days 30', 'cw git token create --json | jq -r .git_token'],
  );
  examples(act(withJson(token.command('ls').alias('list').description('List the project’s git tokens, every member’s (never their values)')), list), ['cw git token ls']);
  examples(act(withYes(token.command('revoke').alias('rm').argument('<token-id>', 'the gtk-… id from `cw git token ls`').description('Revoke a git token: git refuses it from now on')), revoke), [
    'cw git token revoke gtk-3f2a9c0d41b7e655 --yes',
  ]);
  examples(
    act(
      git
        .command('setup')
        .option('--git-url <url>', 'the repository service (default: what the API says)')
        .description('Make git use `cw git credentials` for the platform’s repository service (in ~/.gitconfig)'),
      setup,
    ),
    ['cw git setup && git clone https://git.example.com/my-project/site'],
  );
  examples(
    act(
      git
        .command('credentials')
        .argument('<operation>', 'what git asks: get, store or erase')
        .description('The git credential helper (git runs it; `cw git setup` configures that): answers a git token of the repository’s project'),
      credentials,
    ),
    ["cw git credentials get <<< $'protocol=https\\nhost=git.example.com\\npath=my-project/site.git\\n'   # what git runs; `cw git setup` wires it"],
  );
}

async function create(ctx: Context, options: { scope: 'read' | 'write'; description: string; expiresInDays?: number }): Promise<void> {
  const projectId = await ctx.project();
  const body = { description: options.description, scopes: [options.scope], ...(options.expiresInDays ? { expires_in_seconds: options.expiresInDays * 86_400 } : {}) };
  const answer = await ctx.ok(ctx.api.POST('/v1/projects/{projectId}/git-tokens', { params: { path: { projectId } }, body }));
  if (ctx.json) return printJson(answer);
  success(`Created git token ${answer.token.token_id} (${answer.token.scopes.join(' ')}) for ${projectId}${answer.token.expires_at ? `, expires ${answer.token.expires_at}` : ''}`);
  println(answer.git_token);
  note(`${paint('yellow', '!', process.stderr)} This is the only time the token is shown: store it now.`);
  if (answer.git_url) note(`Use it as the password of any user name: git clone ${answer.git_url}/${projectId}/<repository>`);
}

async function list(ctx: Context): Promise<void> {
  const projectId = await ctx.project();
  const answer = await ctx.ok(ctx.api.GET('/v1/projects/{projectId}/git-tokens', { params: { path: { projectId } } }));
  if (ctx.json) return printJson(answer);
  printTable(
    ['ID', 'DESCRIPTION', 'SCOPES', 'USER', 'STATE', 'CREATED', 'EXPIRES'],
    answer.tokens.map((t) => [t.token_id, t.description, t.scopes.join(' '), t.user, t.state, ago(t.created_at), t.expires_at ?? 'never']),
    'No git tokens.',
  );
}

async function revoke(ctx: Context, tokenId: string): Promise<void> {
  const projectId = await ctx.project();
  await confirmOrExit(ctx, `Revoke ${tokenId}? Anything using it stops working`);
  await ctx.ok(ctx.api.DELETE('/v1/projects/{projectId}/git-tokens/{tokenId}', { params: { path: { projectId, tokenId } } }));
  // A token this machine's helper made goes from its store too.
  updateServer(ctx.apiUrl, (s) => ({ ...s, git_tokens: Object.fromEntries(Object.entries(s.git_tokens ?? {}).filter(([, entry]) => entry.token_id !== tokenId)) }), ctx.env);
  success(`Revoked ${tokenId}`);
}

async function setup(ctx: Context, options: { gitUrl?: string }): Promise<void> {
  let gitUrl = options.gitUrl?.replace(/\/+$/, '');
  if (gitUrl) updateServer(ctx.apiUrl, (s) => ({ ...s, git_url: gitUrl }), ctx.env);
  else gitUrl = await gitUrlOf(ctx);
  // This very program, by absolute path, so git finds it whatever PATH it runs with (as `gh auth setup-git` does).
  const helper = `!${shellQuote(process.execPath)} ${shellQuote(process.argv[1] ?? 'cw')} git credentials`;
  const key = `credential.${gitUrl}`;
  const run = promisify(execFile);
  try {
    // An empty helper first clears the ones inherited for this URL, so git asks this one alone.
    await run('git', ['config', '--global', '--replace-all', `${key}.helper`, ''], { env: ctx.env });
    await run('git', ['config', '--global', '--add', `${key}.helper`, helper], { env: ctx.env });
    // git sends the repository's path only when asked to: the helper reads the project from it.
    await run('git', ['config', '--global', `${key}.useHttpPath`, 'true'], { env: ctx.env });
  } catch (err) {
    throw new CliError(`git config failed: ${(err as { stderr?: string }).stderr?.trim() || (err as Error).message}`);
  }
  success(`git now asks cw for credentials of ${gitUrl}`);
  note(`Clone as you are signed in to ${ctx.apiUrl}: git clone ${gitUrl}/<project>/<repository>`);
}

async function credentials(ctx: Context, operation: string): Promise<void> {
  let input = '';
  for await (const chunk of process.stdin) input += String(chunk);
  process.stdout.write(await credentialHelper(ctx, operation, input));
}
