// Signing in and out: the device authorization flow (RFC 8628), as `gh auth login` does it, and `whoami`.
import { setTimeout as sleep } from 'node:timers/promises';
import type { Command } from 'commander';
import open from 'open';
import { apiClient, apiError, expectOk, unreachable } from '../api/client.ts';
import { act, examples, listOption, withJson } from '../command-kit.ts';
import { readConfig, updateServer, writeConfig } from '../config.ts';
import { Context } from '../context.ts';
import { ApiError, CliError } from '../errors.ts';
import { note, paint, printFields, printJson, success } from '../output.ts';

/** What `cw login` asks for unless told otherwise: everything an ordinary member can do (`:write` implies `:read`). */
export const LOGIN_SCOPES = ['projects:write', 'apps:write', 'deploys:write', 'env:write', 'databases:write', 'domain:write', 'repositories:write', 'audit:read', 'tokens:write'];

export function registerAuth(program: Command): void {
  examples(
    act(
      program
        .command('login')
        .description('Sign in with a code you approve in the browser (device flow); stores the token for this API URL')
        .option('--scopes <list>', 'comma-separated scopes to ask for (default: every member scope)', listOption)
        .option('--no-browser', 'print the URL without opening a browser'),
      login,
    ),
    ['cw login --api-url https://api.cloud.example', 'cw login --scopes projects:read,apps:read'],
  );
  examples(act(program.command('logout').description('Revoke the stored token on the server and delete it from this machine'), logout), ['cw logout']);
  examples(act(withJson(program.command('whoami').description('Show who the token belongs to, its scopes and your projects')), whoami), ['cw whoami', 'cw whoami --json']);
}

interface LoginOptions {
  scopes?: string[];
  browser: boolean;
}

async function login(ctx: Context, options: LoginOptions): Promise<void> {
  const apiUrl = ctx.apiUrl;
  const anonymous = apiClient(apiUrl);
  const scopes = options.scopes ?? LOGIN_SCOPES;
  const grant = await expectOk(anonymous.POST('/v1/device/code', { body: { scope: scopes.join(' '), client_id: 'cw' } }), apiUrl);
  note(`${paint('yellow', '!', process.stderr)} First copy your one-time code: ${paint('bold', grant.user_code, process.stderr)}`);
  const link = grant.verification_uri_complete ?? grant.verification_uri;
  // The URL comes from the server: only a web page is ever handed to the system's opener.
  const opened = options.browser && /^https?:\/\//.test(link) && canOpenBrowser() && (await openBrowser(link));
  note(opened ? `Opened ${link} in your browser; approve the code there.` : `Open ${link} in a browser and approve the code.`);
  note(paint('dim', 'Waiting for approval (Ctrl-C to give up)…', process.stderr));

  const { token, scope } = await pollForToken(apiUrl, grant.device_code, grant.interval, grant.expires_in);
  // Stored before anything else can fail, so a token minted is never one nobody holds.
  const previous = readConfig(ctx.env).servers?.[apiUrl]?.token;
  updateServer(apiUrl, (s) => ({ ...s, token }), ctx.env);
  const config = readConfig(ctx.env);
  if (!config.api_url || ctx.options.apiUrl) writeConfig({ ...config, api_url: apiUrl }, ctx.env);
  // The token this replaces would otherwise live on, stored nowhere: revoke it (best effort, it may be gone).
  if (previous && previous !== token) await revokeQuietly(apiUrl, previous);
  // Who we are needs projects:read, which a narrower sign-in may lack: then the grant's scopes say enough.
  const me = await apiClient(apiUrl, token)
    .GET('/v1/user')
    .catch(() => undefined);
  const who = me?.data ? ` as ${me.data.user.user_id}` : '';
  success(`Signed in to ${apiUrl}${who} (scopes: ${me?.data?.token.scopes.join(' ') ?? scope})`);
}

/** Polls the token endpoint at the server's interval until the code is approved, denied or expires. */
async function pollForToken(apiUrl: string, deviceCode: string, interval: number, expiresIn: number): Promise<{ token: string; scope: string }> {
  const anonymous = apiClient(apiUrl);
  const deadline = Date.now() + expiresIn * 1000;
  let wait = Math.max(interval, 1);
  for (;;) {
    await sleep(wait * 1000);
    if (Date.now() > deadline) throw new CliError('the code expired before it was approved: run `cw login` again');
    let answer;
    try {
      answer = await anonymous.POST('/v1/device/token', { body: { grant_type: 'urn:ietf:params:oauth:grant-type:device_code', device_code: deviceCode } });
    } catch (err) {
      throw unreachable(err, apiUrl);
    }
    if (answer.data) return { token: answer.data.access_token, scope: answer.data.scope };
    const code = (answer.error as { error?: string } | undefined)?.error;
    switch (code) {
      case 'authorization_pending':
        continue;
      case 'slow_down':
        wait += 5;
        continue;
      case 'expired_token':
        throw new CliError('the code expired before it was approved: run `cw login` again');
      case 'access_denied':
        throw new CliError('the sign-in was denied in the browser');
      default:
        throw apiError(answer.response, answer.error);
    }
  }
}

/** A graphical session (or macOS/Windows) where opening a browser can work; over SSH it cannot. */
function canOpenBrowser(env: NodeJS.ProcessEnv = process.env): boolean {
  if (!process.stderr.isTTY || env.SSH_CONNECTION) return false;
  if (process.platform === 'darwin' || process.platform === 'win32') return true;
  return Boolean(env.DISPLAY || env.WAYLAND_DISPLAY);
}

async function openBrowser(url: string): Promise<boolean> {
  try {
    const child = await open(url);
    child.on('error', () => {});
    return true;
  } catch {
    return false;
  }
}

async function revokeQuietly(apiUrl: string, token: string): Promise<void> {
  try {
    await revoke(apiUrl, token);
  } catch {
    // Unreachable or already refused: nothing more to do from here.
  }
}

/**
 * Revokes `token` with itself (any scope may). An API older than that route (404) is asked the classic way:
 * the token's id from /v1/user, then DELETE /v1/tokens/{id} (needs tokens:write).
 */
async function revoke(apiUrl: string, token: string): Promise<void> {
  const api = apiClient(apiUrl, token);
  try {
    await expectOk(api.DELETE('/v1/user/token'), apiUrl);
  } catch (err) {
    if (!(err instanceof ApiError && err.status === 404)) throw err;
    const { token: info } = await expectOk(api.GET('/v1/user'), apiUrl);
    await expectOk(api.DELETE('/v1/tokens/{tokenId}', { params: { path: { tokenId: info.token_id } } }), apiUrl);
  }
}

async function logout(ctx: Context): Promise<void> {
  const apiUrl = ctx.apiUrl;
  const settings = readConfig(ctx.env).servers?.[apiUrl];
  const token = settings?.token;
  if (!token) throw new CliError(`not signed in to ${apiUrl}: no stored token to remove`);
  // The git tokens `cw git credentials` made belong to this sign-in: revoked first, while its token still works.
  const api = apiClient(apiUrl, token);
  for (const [projectId, entry] of Object.entries(settings.git_tokens ?? {})) {
    await api.DELETE('/v1/projects/{projectId}/git-tokens/{tokenId}', { params: { path: { projectId, tokenId: entry.token_id } } }).catch(() => undefined);
  }
  try {
    await revoke(apiUrl, token);
  } catch (err) {
    // A token the server already refuses (revoked, expired) only needs forgetting; any other failure keeps it,
    // so the user can retry rather than leave a live token behind that nothing remembers.
    if (!(err instanceof ApiError && err.status === 401)) throw err;
  }
  // The database query tokens and git tokens cw kept for this server go too: they belong to the session being closed.
  updateServer(apiUrl, (s) => ({ project: s.project, ...(s.git_url ? { git_url: s.git_url } : {}) }), ctx.env);
  success(`Signed out of ${apiUrl}: the token is revoked and deleted from this machine`);
}

async function whoami(ctx: Context): Promise<void> {
  const answer = await ctx.ok(ctx.api.GET('/v1/user'));
  if (ctx.json) return printJson(answer);
  const { user, token } = answer;
  printFields([
    ['User', user.user_id],
    ['Name', user.display_name],
    ['Email', user.email],
    ['Admin', user.admin],
    ['API', ctx.apiUrl],
    ['Token', token.token_id],
    ['Scopes', token.scopes.join(' ')],
    ['Projects', user.memberships.map((m) => `${m.project_id} (${m.role})`).join(', ')],
  ]);
}
