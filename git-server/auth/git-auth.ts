// Authentication, scope and reach checks for every cw-git route, driven by the route's config: `{ scope: 'read' }`
// or `{ scope: 'write' }` names what it needs; `{ public: true }` (health and readiness probes only) skips it.
// A route that declares neither still requires a valid token: nothing is public by accident. A token that reaches
// only some repositories (a project's git token, a JWT with `repos`) may use only routes under one of them.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { PublicError } from '../../src/errors.ts';
import { describeReach, reaches, repoReach, type RepoReach } from './repo-patterns.ts';
import { isGitTokenLike } from '../../src/auth/git-token.ts';
import { parseUrlRepoPath, type RepoPath } from '../../src/repo-store/repo-path.ts';
import { tokenFromAuthorization } from './credentials.ts';
import { ForbiddenError, UnauthenticatedError } from './errors.ts';
import type { ProjectTokens } from './project-tokens.ts';
import { verifyToken, type GitScope } from './token.ts';
import { trustedPeers } from '../../src/trusted-peers.ts';

/** What the plugin needs; `GitServiceConfig['auth']` is one. */
export interface GitAuthOptions {
  /** The HS256 key tokens are signed with. */
  readonly tokenSecret: string | Uint8Array;
  /** IPs and CIDR ranges whose principal header is believed. Default: none. */
  readonly trustedProxies?: readonly string[];
  /** The header carrying the end user from a trusted proxy. Default `x-forwarded-user`. */
  readonly principalHeader?: string;
  /** The clock, in ms since the epoch (tests). */
  readonly now?: () => number;
  /** The platform's per-project git tokens (`cwg_…`); absent: such tokens are refused (401). */
  readonly projectTokens?: ProjectTokens;
}

/** The authenticated caller of a request. */
export interface GitPrincipal {
  /** Who acts, as events report it (`pusher`): the token's `sub`, or the end user a trusted proxy named. */
  readonly name: string;
  /** What the presented token allows (a proxy's token: the proxy's scopes). */
  readonly scopes: ReadonlySet<GitScope>;
  /** The `sub` of the presented token: the proxy's own identity when `forwarded`. */
  readonly tokenSubject: string;
  /** Whether `name` came from a trusted proxy's header. */
  readonly forwarded: boolean;
  /** When the token stops working (ms since the epoch), if it expires. */
  readonly expiresAt?: number;
  /** The repositories the token reaches. */
  readonly reach: RepoReach;
  /** For a project's git token: the project (and its namespace), where the repositories it creates belong. */
  readonly project?: string;
}

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The scope a route needs; `write` implies `read`. */
    scope?: GitScope;
    /** Serve without authentication (probes only). */
    public?: boolean;
  }
  interface FastifyRequest {
    /** Set by `gitAuth` on every non-public route. (`principal` is the platform API's, of another type.) */
    gitPrincipal?: GitPrincipal;
  }
}

const MAX_PRINCIPAL_LENGTH = 256;

/** A trusted proxy sent a principal header that cannot be a principal. */
class InvalidForwardedPrincipalError extends PublicError {
  override readonly name = 'InvalidForwardedPrincipalError';
  readonly code = 'invalid_request';
  constructor(header: string) {
    super(400, `The ${header} header must be one value of 1-${MAX_PRINCIPAL_LENGTH} printable characters.`);
  }
}

/**
 * Registers authentication on `app` (call it before the routes, on the root instance, not inside a
 * `register`, so it covers every route). Each non-public request must carry a valid token (else 401 with a
 * Basic challenge) holding the route's scope (else 403); `request.gitPrincipal` is then set. A request from a
 * trusted proxy acts as the user its principal header names, with the proxy's token's scopes.
 */
export function gitAuth(app: FastifyInstance, options: GitAuthOptions): void {
  const isTrusted = trustedPeers(options.trustedProxies ?? []);
  const header = (options.principalHeader ?? 'x-forwarded-user').toLowerCase();
  const now = options.now ?? Date.now;
  app.decorateRequest('gitPrincipal', undefined);
  // onRequest: before the body is read, so an unauthenticated caller cannot make us read (or spool) anything.
  app.addHook('onRequest', async (request) => {
    const config = request.routeOptions.config;
    if (config.public === true) return;
    const credential = await authenticate(tokenFromAuthorization(request.headers.authorization), options, now());
    const forwardedName = isTrusted(request.socket.remoteAddress) ? forwardedPrincipal(request, header) : undefined;
    request.gitPrincipal = { ...credential, name: forwardedName ?? credential.name, forwarded: forwardedName !== undefined };
    if (config.scope) requireScope(request, config.scope);
    checkRouteReach(request);
  });
}

/** The principal a token makes, before a trusted proxy's header may rename it. */
async function authenticate(token: string, options: GitAuthOptions, now: number): Promise<Omit<GitPrincipal, 'forwarded'>> {
  if (isGitTokenLike(token)) {
    if (!options.projectTokens) throw new UnauthenticatedError('Project git tokens (cwg_…) are not accepted by this cw-git (kubernetes.project_tokens is off).');
    const grant = await options.projectTokens.authenticate(token, now);
    return {
      name: grant.user,
      scopes: grant.scopes,
      tokenSubject: grant.id,
      reach: repoReach([grant.project], (repo) => options.projectTokens?.heldByService(repo) ?? false),
      project: grant.project,
      ...(grant.expiresAt === undefined ? {} : { expiresAt: grant.expiresAt }),
    };
  }
  const claims = verifyToken(token, options.tokenSecret, now);
  return { name: claims.sub, scopes: claims.scopes, tokenSubject: claims.sub, reach: claims.reach, ...(claims.exp === undefined ? {} : { expiresAt: claims.exp * 1000 }) };
}

/**
 * A token reaching only some repositories may use a route only under one of them (`/{owner}/{repo}/…`): git,
 * LFS, the JSON API, creating and deleting. Routes about no one repository (metrics, the events wake-up) need a
 * token reaching every repository. A path no route matches goes on to its 404, and a repository name that is
 * not one to the route's 400: neither serves anything.
 */
function checkRouteReach(request: FastifyRequest): void {
  const { reach } = principalOf(request);
  if (reach.all || request.is404) return;
  const params = request.params as { owner?: unknown; repo?: unknown } | undefined;
  if (typeof params?.owner !== 'string' || typeof params.repo !== 'string') {
    throw new ForbiddenError(`This route is not about one repository: it needs a token that reaches every repository, and this one reaches only ${describeReach(reach)}.`);
  }
  let repo: RepoPath;
  try {
    repo = parseUrlRepoPath(params.owner, params.repo);
  } catch {
    return;
  }
  requireReach(request, repo);
}

/** Throws `ForbiddenError` (403) unless the caller's token reaches `repo`: for repositories a request names besides its route's (an import source). */
export function requireReach(request: FastifyRequest, repo: RepoPath): void {
  const { reach } = principalOf(request);
  if (reaches(reach, repo)) return;
  if (!reach.all && reach.except?.(repo)) throw new ForbiddenError(`${repo.full} is one of cw-git's own repositories, not a project's: no project token reaches it.`);
  throw new ForbiddenError(`This token reaches only ${describeReach(reach)}; not ${repo.full}.`);
}

function forwardedPrincipal(request: FastifyRequest, header: string): string | undefined {
  // From the raw headers: Node joins a repeated header into "alice, bob", which must not become one principal.
  const raw = request.raw.rawHeaders;
  const values: string[] = [];
  for (let i = 0; i + 1 < raw.length; i += 2) if (raw[i]!.toLowerCase() === header) values.push(raw[i + 1]!);
  if (values.length === 0) return undefined;
  const value = values.length === 1 ? values[0] : undefined;
  if (typeof value !== 'string' || value.length === 0 || value.length > MAX_PRINCIPAL_LENGTH || /\p{Cc}/u.test(value)) {
    throw new InvalidForwardedPrincipalError(header);
  }
  return value;
}

/** The caller of a request that went through `gitAuth`; throws for a public route (a programming error). */
export function principalOf(request: FastifyRequest): GitPrincipal {
  if (!request.gitPrincipal) throw new Error(`route ${request.routeOptions.url ?? request.url} is public: it has no principal`);
  return request.gitPrincipal;
}

/** Throws `ForbiddenError` (403) unless the caller's token holds `scope`: for routes whose need depends on the request. */
export function requireScope(request: FastifyRequest, scope: GitScope): void {
  const principal = principalOf(request);
  if (principal.scopes.has(scope)) return;
  const held = [...principal.scopes].join(', ') || 'none';
  throw new ForbiddenError(`This needs the "${scope}" scope; the access token has: ${held}.`);
}
