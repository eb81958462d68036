import type { FastifyRequest } from 'fastify';
import { hasScope, requireScope, type Scope } from '../../src/auth/index.ts';

// Scopes that only some bodies of a route need, checked in its handler: the route's own scope (and its `also`)
// the auth hook has checked already, for every body.

/** Whether the caller's token holds `scope`. */
export function holds(request: FastifyRequest, scope: Scope): boolean {
  const principal = request.principal;
  return principal !== undefined && hasScope(principal.scopes, scope);
}

/** 403 unless the caller's token holds `scope`. */
export function requireToo(request: FastifyRequest, scope: Scope): void {
  if (request.principal === undefined) throw new Error('requireToo on a route without authentication');
  requireScope(request.principal, scope);
}

/**
 * What giving an app a database's token takes of the caller: what the token lets the app do, since the caller
 * chooses the app's code (reading the database for a read-only token, writing it for a full one).
 */
export function databaseLinkScope(access: string | undefined): Scope {
  return access === 'full' ? 'databases:write' : 'databases:read';
}
