// `cw git credentials`: a git credential helper, so `git clone`, `fetch` and `push` (and git-lfs) against the
// platform's repository service just work for whoever `cw` is signed in as. git asks it with `get`; it answers a
// git token of the repository's project (the owner segment of its path), made through the API the first time and
// kept in the config file (mode 0600) while it has more than an hour left, so every git command does not make one.
// `erase` (git had the token refused) forgets it; `store` is ignored: the tokens are this helper's own.
import { readConfig, updateServer, type GitTokenEntry } from '../config.ts';
import type { Context } from '../context.ts';
import { ApiError, UsageError } from '../errors.ts';
import { formatCredentials, parseCredentialRequest, projectOfRequest, type CredentialRequest } from '../git-credential.ts';

/** How long the tokens this helper makes live. */
export const HELPER_TOKEN_SECONDS = 7 * 86_400;
const REUSE_MARGIN_MS = 3600 * 1000;

/** The repository service's URL: the one stored, else the API's answer (stored for next time). */
export async function gitUrlOf(ctx: Context, project?: string): Promise<string> {
  const stored = readConfig(ctx.env).servers?.[ctx.apiUrl]?.git_url;
  if (stored) return stored;
  const projectId = project ?? (await ctx.project());
  const { git_url } = await ctx.ok(ctx.api.GET('/v1/projects/{projectId}/git-tokens', { params: { path: { projectId } } }));
  if (!git_url) throw new UsageError('the API does not say where its repository service is (CW_GIT_PUBLIC_URL): pass --git-url');
  updateServer(ctx.apiUrl, (s) => ({ ...s, git_url }), ctx.env);
  return git_url;
}

/** Runs one operation of the protocol with git's request on `input`; answers what goes to stdout. */
export async function credentialHelper(ctx: Context, operation: string, input: string): Promise<string> {
  const request = parseCredentialRequest(input);
  if (operation === 'store') return '';
  const gitUrl = readConfig(ctx.env).servers?.[ctx.apiUrl]?.git_url;
  // Not set up for this server: say nothing, so git asks its other helpers (or the person).
  if (!gitUrl) return '';
  const target = projectOfRequest(request, gitUrl);
  if (!target) return '';
  const project = target.project ?? (await ctx.project());
  if (operation === 'erase') {
    forget(ctx, project, request);
    return '';
  }
  if (operation !== 'get') throw new UsageError(`unknown credential operation ${JSON.stringify(operation)} (git sends get, store or erase)`);
  const entry = await tokenFor(ctx, project);
  return formatCredentials({
    username: entry.user,
    password: entry.token,
    // git 2.41 and later stop using a credential at its expiry and ask again.
    password_expiry_utc: String(Math.floor(Date.parse(entry.expires_at) / 1000)),
  });
}

async function tokenFor(ctx: Context, project: string): Promise<GitTokenEntry> {
  const stored = readConfig(ctx.env).servers?.[ctx.apiUrl]?.git_tokens?.[project];
  if (stored && Date.parse(stored.expires_at) - Date.now() > REUSE_MARGIN_MS) return stored;
  const made = await mint(ctx, project);
  const entry: GitTokenEntry = {
    token: made.git_token,
    token_id: made.token.token_id,
    user: made.token.user,
    expires_at: made.token.expires_at ?? new Date(Date.now() + HELPER_TOKEN_SECONDS * 1000).toISOString(),
  };
  updateServer(ctx.apiUrl, (s) => ({ ...s, git_tokens: { ...s.git_tokens, [project]: entry } }), ctx.env);
  return entry;
}

/** A read+write token when the signed-in token may make one, else a read token (a read-only sign-in). */
async function mint(ctx: Context, project: string) {
  const make = (scopes: ('read' | 'write')[]) =>
    ctx.ok(
      ctx.api.POST('/v1/projects/{projectId}/git-tokens', {
        params: { path: { projectId: project } },
        body: { description: `cw git credentials (${scopes.join('+')})`, scopes, expires_in_seconds: HELPER_TOKEN_SECONDS },
      }),
    );
  try {
    return await make(['read', 'write']);
  } catch (err) {
    if (err instanceof ApiError && err.status === 403 && /repositories:write/.test(err.message)) return make(['read']);
    throw err;
  }
}

/** git had this token refused (revoked, expired, the member left): the next `get` makes a new one. */
function forget(ctx: Context, project: string, request: CredentialRequest): void {
  updateServer(
    ctx.apiUrl,
    (s) => {
      const tokens = { ...s.git_tokens };
      if (request.password === undefined || tokens[project]?.token === request.password) delete tokens[project];
      return { ...s, git_tokens: tokens };
    },
    ctx.env,
  );
}
