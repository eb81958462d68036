// Personal access tokens: the plaintext is printed once, at creation; listings never show it.
import type { Command } from 'commander';
import { act, confirmOrExit, examples, intOption, listOption, withJson, withYes } from '../command-kit.ts';
import type { paths } from '../api/schema.ts';
import type { Context } from '../context.ts';
import { ago, note, paint, printJson, printTable, println, success } from '../output.ts';

export function registerTokens(program: Command): void {
  const tokens = program.command('tokens').alias('token').description('Create, list and revoke personal access tokens');
  examples(
    act(
      withJson(
        tokens
          .command('create')
          .requiredOption('--scopes <list>', 'comma-separated scopes, e.g. apps:read,deploys:write', listOption)
          .option('--description <text>', 'what the token is for', 'created with cw')
          .option('--expires-in-days <days>', 'expire after this many days (default: never)', intOption(1, 365))
          .description('Create a token and print it (once: it cannot be shown again)'),
      ),
      create,
    ),
    ['cw tokens create --scopes apps:read,deploys:write --description "CI deploys" --expires-in-days 90', 'cw tokens create --scopes projects:read --json | jq -r .access_token'],
  );
  examples(act(withJson(tokens.command('ls').alias('list').description('List your tokens (never their values)')), list), ['cw tokens ls']);
  examples(act(withYes(tokens.command('revoke').alias('rm').argument('<token-id>', 'the tok-… id from `cw tokens ls`').description('Revoke a token: it is refused from now on')), revoke), [
    'cw tokens revoke tok-3f2a9c0d --yes',
  ]);
}

/** A scope name as the API's document lists them. */
type Scope = paths['/v1/tokens']['post']['requestBody']['content']['application/json']['scopes'][number];

async function create(ctx: Context, options: { scopes: string[]; description: string; expiresInDays?: number }): Promise<void> {
  // An unknown scope is the API's to refuse: its 400 lists the valid ones.
  const body = { description: options.description, scopes: options.scopes as Scope[], ...(options.expiresInDays ? { expires_in_days: options.expiresInDays } : {}) };
  const answer = await ctx.ok(ctx.api.POST('/v1/tokens', { body }));
  if (ctx.json) return printJson(answer);
  success(`Created token ${answer.token.token_id} (${answer.token.scopes.join(' ')})${answer.token.expires_at ? `, expires ${answer.token.expires_at}` : ''}`);
  println(answer.access_token);
  note(`${paint('yellow', '!', process.stderr)} This is the only time the token is shown: store it now.`);
}

async function list(ctx: Context): Promise<void> {
  const answer = await ctx.ok(ctx.api.GET('/v1/tokens'));
  if (ctx.json) return printJson(answer);
  printTable(
    ['ID', 'DESCRIPTION', 'SCOPES', 'STATE', 'CREATED', 'EXPIRES'],
    answer.tokens.map((t) => [t.token_id, t.description, t.scopes.join(' '), t.state, ago(t.created_at), t.expires_at ?? 'never']),
    'No tokens.',
  );
}

async function revoke(ctx: Context, tokenId: string): Promise<void> {
  await confirmOrExit(ctx, `Revoke ${tokenId}? Anything using it stops working`);
  await ctx.ok(ctx.api.DELETE('/v1/tokens/{tokenId}', { params: { path: { tokenId } } }));
  success(`Revoked ${tokenId}`);
}
