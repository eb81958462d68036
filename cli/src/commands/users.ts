// `cw users`: the installation's people, for administrators (a token with the `admin` scope, held only by an
// administrator). Members of a project are `cw projects members`; this is who exists at all.
import type { Command } from 'commander';
import type { paths } from '../api/schema.ts';
import { act, confirmOrExit, examples, withJson, withLimit, withYes } from '../command-kit.ts';
import type { Context } from '../context.ts';
import { UsageError } from '../errors.ts';
import { collectPages } from '../pages.ts';
import { ago, printFields, printJson, printTable, success, terminalSafe } from '../output.ts';

type User = paths['/v1/users/{userId}']['get']['responses'][200]['content']['application/json']['user'];

/** The API's bound on a password (api/routes/session.ts); checked here so a file too long is one clear line. */
const MAX_PASSWORD_BYTES = 1024;

export function registerUsers(program: Command): void {
  const users = program.command('users').alias('user').description('List, create and delete users and set their passwords (administrators: a token with the admin scope)');
  examples(act(withJson(withLimit(users.command('ls').alias('list').description('List every user, with their projects'))), list), ['cw users ls', 'cw users ls --json | jq -r ".users[].user_id"']);
  examples(act(withJson(users.command('get').argument('<user>', 'user id').description('Show a user and their projects')), get), ['cw users get alice']);
  examples(
    act(
      withJson(
        users
          .command('create')
          .argument('<user>', 'user id: lowercase letters, digits, dashes and dots, e.g. alice')
          .option('--name <display-name>', 'how the console shows them')
          .option('--email <address>', 'their email address (an OpenID sign-in with it finds this user)')
          .option('--admin', 'make them an administrator of the installation')
          .description('Create a user; they sign in once they have a password (`cw users set-password`) or through OpenID'),
      ),
      create,
    ),
    ['cw users create alice --name "Alice Liddell" --email alice@example.com', 'cw users create ops --admin'],
  );
  examples(
    act(
      users
        .command('set-password')
        .argument('<user>', 'user id')
        .description('Set a user’s console password, read from stdin (never an argument, which other users of the machine can see); ends every session they had'),
      setPassword,
    ),
    ['cw users set-password alice < alice-password.txt', 'printf %s "$PASSWORD" | cw users set-password alice'],
  );
  examples(
    act(withYes(users.command('rm').alias('delete').argument('<user>', 'user id').description('Delete a user and revoke every token of theirs (refused while they are in a project)')), remove),
    ['cw users rm alice --yes'],
  );
}

async function list(ctx: Context, options: { limit?: number }): Promise<void> {
  const { items, next } = await collectPages(async (query) => {
    const page = await ctx.ok(ctx.api.GET('/v1/users', { params: { query } }));
    return { items: page.users, next: page.next };
  }, options.limit);
  if (ctx.json) return printJson({ users: items, next });
  printTable(
    ['USER', 'NAME', 'EMAIL', 'ADMIN', 'PROJECTS', 'CREATED'],
    items.map((u) => [u.user_id, shown(u.display_name), shown(u.email), u.admin, projectsOf(u), ago(u.created_at)]),
    'No users.',
  );
}

async function get(ctx: Context, userId: string): Promise<void> {
  const answer = await ctx.ok(ctx.api.GET('/v1/users/{userId}', { params: { path: { userId } } }));
  if (ctx.json) return printJson(answer);
  printUser(answer.user);
}

async function create(ctx: Context, userId: string, options: { name?: string; email?: string; admin?: boolean }): Promise<void> {
  const body = {
    user_id: userId,
    ...(options.name === undefined ? {} : { display_name: options.name }),
    ...(options.email === undefined ? {} : { email: options.email }),
    ...(options.admin ? { admin: true } : {}),
  };
  const answer = await ctx.ok(ctx.api.POST('/v1/users', { body }));
  if (ctx.json) return printJson(answer);
  success(`Created user ${answer.user.user_id}${answer.user.admin ? ', an administrator' : ''}`);
}

async function setPassword(ctx: Context, userId: string): Promise<void> {
  if (process.stdin.isTTY) throw new UsageError('pass the password on stdin, e.g. `cw users set-password alice < file` (typed here it would show on the screen)');
  const chunks: Buffer[] = [];
  let bytes = 0;
  for await (const chunk of process.stdin as AsyncIterable<Buffer>) {
    chunks.push(chunk);
    bytes += chunk.length;
    if (bytes > MAX_PASSWORD_BYTES + 5) throw new UsageError(`the password on stdin is longer than ${MAX_PASSWORD_BYTES} bytes`);
  }
  // Decoded once, whole (a character split between two reads stays one), strictly (bytes that are not UTF-8 are
  // refused rather than set as a password nobody can type), and without the byte order mark an editor may add.
  let input: string;
  try {
    input = new TextDecoder('utf-8', { fatal: true }).decode(Buffer.concat(chunks));
  } catch {
    throw new UsageError('the password on stdin is not UTF-8 text');
  }
  // One line, as `echo` and most files give it: the line break that ends it is not part of the password.
  const password = input.replace(/\r?\n$/, '');
  if (password === '') throw new UsageError('no password on stdin');
  if (/[\r\n]/.test(password)) throw new UsageError('the password on stdin is more than one line');
  await ctx.ok(ctx.api.PUT('/v1/users/{userId}/password', { params: { path: { userId } }, body: { password } }));
  success(`Set the password of ${userId}; every session they had is signed out`);
}

async function remove(ctx: Context, userId: string): Promise<void> {
  await confirmOrExit(ctx, `Delete user ${userId}? Every token of theirs is revoked`);
  await ctx.ok(ctx.api.DELETE('/v1/users/{userId}', { params: { path: { userId } } }));
  success(`Deleted user ${userId}`);
}

function printUser(user: User): void {
  printFields([
    ['User', user.user_id],
    ['Name', shown(user.display_name)],
    ['Email', shown(user.email)],
    ['Admin', user.admin],
    ['Created', user.created_at],
    ['Projects', projectsOf(user)],
  ]);
}

function projectsOf(user: User): string {
  return user.memberships.map((m) => `${m.project_id} (${m.role})`).join(', ');
}

// Names and addresses come from the API, and a User made with kubectl is checked only by its CRD: shown as text.
function shown(value: string | null): string | null {
  return value === null ? null : terminalSafe(value, '');
}
