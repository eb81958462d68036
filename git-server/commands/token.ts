// `cw-git token --sub <principal> --scope read[,write] [--ttl 30d] [--repos acme,team-*]`: an access token signed
// with the configured `auth.token_secret`, for operators to hand out (the service has no sign-in of its own).
import { GIT_SCOPES, mintToken, type GitScope } from '../auth/index.ts';
import { repoReach } from '../auth/repo-patterns.ts';
import { printable, UsageError } from './args.ts';
import { writeJson, type Command } from './command.ts';

const TTL_UNITS = { s: 1, m: 60, h: 3600, d: 86_400 } as const;
/** Tokens cannot be revoked one by one (only by rotating the secret), so they expire unless asked not to. */
export const DEFAULT_TTL = '30d';
export const MAX_TTL_SECONDS = 3660 * 86_400;

/** `30d` → 2 592 000 seconds (one number, one unit of s, m, h, d); `never` → undefined (no `exp` claim). */
export function parseTtl(text: string): number | undefined {
  if (text === 'never') return undefined;
  const match = /^([1-9][0-9]{0,8})([smhd])$/.exec(text);
  if (!match) throw new UsageError(`--ttl must be a number and a unit s, m, h or d (e.g. 12h, 30d), or never; not "${printable(text)}"`, 'token');
  const seconds = Number(match[1]) * TTL_UNITS[match[2] as keyof typeof TTL_UNITS];
  if (seconds > MAX_TTL_SECONDS) throw new UsageError(`--ttl ${text} is longer than ten years; use never for a token that does not expire`, 'token');
  return seconds;
}

/** `read,write` → `['read', 'write']`; each scope known and given once. */
export function parseScopes(text: string): GitScope[] {
  const scopes = text.split(',').map((s) => s.trim());
  for (const scope of scopes) {
    if (!(GIT_SCOPES as readonly string[]).includes(scope)) throw new UsageError(`unknown scope "${printable(scope)}" (scopes: ${GIT_SCOPES.join(', ')})`, 'token');
  }
  if (new Set(scopes).size !== scopes.length) throw new UsageError(`--scope ${printable(text)} names a scope twice`, 'token');
  return scopes as GitScope[];
}

/** `acme,team-*,docs/site` → the patterns, each checked; the token then reaches only repositories matching one. */
export function parseRepos(text: string): string[] {
  const patterns = text.split(',').map((s) => s.trim());
  try {
    repoReach(patterns);
  } catch (err) {
    throw new UsageError(`--repos: ${printable((err as Error).message)}`, 'token');
  }
  return patterns;
}

/** The `exp` claim of a JWT as an ISO time, or null: read back from the token rather than recomputed. */
export function expiryOf(token: string): string | null {
  try {
    const payload = JSON.parse(Buffer.from(token.split('.')[1] ?? '', 'base64url').toString('utf8')) as { exp?: unknown };
    return typeof payload.exp === 'number' ? new Date(payload.exp * 1000).toISOString() : null;
  } catch {
    return null;
  }
}

export const tokenCommand: Command = {
  name: 'token',
  summary: 'mint an access token for the service, signed with auth.token_secret',
  positionals: [],
  options: {
    sub: { type: 'string', value: 'principal', help: 'who the token is for (1-256 printable characters, no spaces): the pusher events report', required: true },
    scope: { type: 'string', value: 'read[,write]', help: 'read: fetch, clone, LFS download, read API; write (implies read): push, LFS upload, write API', required: true },
    ttl: { type: 'string', value: 'duration', help: `lifetime such as 12h or 90d, or never (default ${DEFAULT_TTL})` },
    repos: { type: 'string', value: 'patterns', help: 'the repositories it reaches: owners (acme), owner/repo (acme/site), * within a segment (team-*); default: every repository' },
  },
  json: true,
  details:
    'Prints the token alone on stdout (TOKEN=$(cw-git token ...)); clients send it as Authorization: Bearer <token>. Anyone holding auth.token_secret can mint tokens, and rotating it revokes them all: keep the configuration file private.',
  async run(invocation, context, out) {
    const sub = String(invocation.options.sub);
    const scopes = parseScopes(String(invocation.options.scope));
    const ttl = parseTtl(String(invocation.options.ttl ?? DEFAULT_TTL));
    const repos = invocation.options.repos === undefined ? undefined : parseRepos(String(invocation.options.repos));
    let token: string;
    try {
      token = mintToken({ sub, scopes, ...(ttl === undefined ? {} : { ttlSeconds: ttl }), ...(repos ? { repos } : {}) }, context.config.auth.tokenSecret);
    } catch (err) {
      // mintToken refuses only its inputs (the secret was checked when the configuration loaded).
      throw new UsageError(`--sub: ${(err as Error).message}`, 'token');
    }
    if (invocation.json) await writeJson(out, { token, sub, scopes, expiresAt: expiryOf(token), repos: repos ?? null });
    else await out.write(`${token}\n`);
  },
};
