import { InvalidScopeError } from './errors.ts';

/**
 * Every scope a token can carry, with the description the OpenAPI security scheme shows. `domain:*` are
 * the spec's names; the others follow the same `resource:read|write` pattern. Order is the display order.
 */
export const SCOPES = {
  'projects:read': 'List the projects you belong to and read them.',
  'projects:write': 'Change the settings of projects you belong to.',
  'apps:read': 'List and read runtime apps, their builds and hostnames.',
  'apps:write': 'Create, change and delete runtime apps and attach or detach their hostnames.',
  'deploys:write': 'Upload builds, deploy them and roll runtime apps back.',
  'env:read': 'Read app environment variables.',
  'env:write': 'Set and delete app environment variables.',
  'databases:read': 'List and read databases.',
  'databases:write': 'Create and delete databases and rotate their connection tokens.',
  'domain:read': 'List and read project domains and their DNS records.',
  'domain:write': 'Add, check and delete project domains; create, update and delete DNS records.',
  'repositories:read': 'List the project’s git tokens, and make ones that read its repositories (clone, fetch, LFS downloads, the read API).',
  'repositories:write': 'Make git tokens that also push to the project’s repositories (and create and delete them).',
  'audit:read': 'Read the audit trail of projects you belong to: who changed what, when, and the outcome.',
  'tokens:read': 'List your access tokens (never their values).',
  'tokens:write': 'Create and revoke your access tokens and approve device sign-ins.',
  admin: 'Administration: manage users, manage the members of and delete any project, reach every project. ' + 'Only effective on tokens of platform administrators.',
} as const satisfies Record<string, string>;

/** A scope name from {@link SCOPES}. */
export type Scope = keyof typeof SCOPES;

/** All scope names in catalog order. */
export const SCOPE_NAMES: readonly Scope[] = Object.keys(SCOPES) as Scope[];

/** Whether `name` is a scope of the catalog. */
export function isScope(name: string): name is Scope {
  return Object.hasOwn(SCOPES, name);
}

/**
 * Validates scopes a caller asks for (a token to be created, a device authorization): every name must be in
 * the catalog and at least one must be given. Accepts a list or an OAuth `scope` parameter (names separated
 * by spaces, RFC 6749 §3.3). Returns them de-duplicated in catalog order.
 *
 * @throws InvalidScopeError (a 400) naming the unknown scopes, or saying that none was given.
 */
export function parseScopes(requested: string | readonly string[]): Scope[] {
  const names = typeof requested === 'string' ? requested.split(/\s+/).filter((name) => name !== '') : requested;
  const unknown = [...new Set(names.filter((name) => !isScope(name)))];
  if (unknown.length > 0) {
    const listed = unknown.slice(0, 5).map(quoteName).join(', ');
    const noun = unknown.length > 1 ? 'scopes' : 'scope';
    throw new InvalidScopeError(`Unknown ${noun} ${listed}. Valid scopes: ${SCOPE_NAMES.join(', ')}.`);
  }
  if (names.length === 0) throw new InvalidScopeError('At least one scope is required.');
  return SCOPE_NAMES.filter((scope) => names.includes(scope));
}

/**
 * The catalog scopes among `stored`, dropping names the catalog does not know. A token applied with
 * `kubectl` may carry any name the CRD pattern admits; an unknown name grants nothing rather than failing
 * authentication, so a scope retired from the catalog does not lock its holders out.
 */
export function knownScopes(stored: readonly string[]): Scope[] {
  return SCOPE_NAMES.filter((scope) => stored.includes(scope));
}

const SCOPE_BITS = new Map<string, number>(SCOPE_NAMES.map((scope, index) => [scope, 1 << index]));
const ADMIN_BIT = SCOPE_BITS.get('admin') ?? 0;
/** One frozen list per combination of catalog scopes (at most 2^16), shared by every principal holding it. */
const scopeListsByBits = new Map<number, readonly Scope[]>();

/**
 * What a token with the `stored` scopes may do for a user: {@link knownScopes}, without `admin` unless the
 * user is an administrator. The list is frozen and shared: authentication computes it on every request, and
 * a lookup by bit set costs a fraction of filtering the catalog (measured: bench/README.md).
 */
export function effectiveScopes(stored: readonly string[], administrator: boolean): readonly Scope[] {
  let bits = 0;
  for (const name of stored) bits |= SCOPE_BITS.get(name) ?? 0;
  if (!administrator) bits &= ~ADMIN_BIT;
  let scopes = scopeListsByBits.get(bits);
  if (!scopes) {
    scopes = Object.freeze(SCOPE_NAMES.filter((scope) => (bits & (SCOPE_BITS.get(scope) ?? 0)) !== 0));
    scopeListsByBits.set(bits, scopes);
  }
  return scopes;
}

/**
 * Whether `granted` allows an operation needing `needed`. `x:write` implies `x:read`: a client that may
 * change a resource has to read it to do so (GitHub's fine-grained permissions work the same way). Nothing
 * else is implied; in particular `admin` does not imply the resource scopes, so an administrator's token
 * still says what it may do inside a project.
 */
export function hasScope(granted: Iterable<Scope>, needed: Scope): boolean {
  const writeOf = WRITE_OF_READ.get(needed);
  for (const scope of granted) {
    if (scope === needed || scope === writeOf) return true;
  }
  return false;
}

/** `x:read` → `x:write`, for the catalog's read scopes that have one; computed once, not per check. */
const WRITE_OF_READ = new Map<Scope, Scope>(
  SCOPE_NAMES.filter((scope) => scope.endsWith(':read')).flatMap((read) => {
    const write = `${read.slice(0, -':read'.length)}:write`;
    return SCOPE_NAMES.includes(write as Scope) ? [[read, write as Scope] as const] : [];
  }),
);

// Names come from the request; keep a hostile one from flooding the response or breaking its layout.
function quoteName(name: string): string {
  return JSON.stringify(name.length > 64 ? `${name.slice(0, 64)}…` : name);
}
