import { BadRequestError, PublicError } from '../errors.ts';

/** The realm every challenge names, so a client holding tokens for several services can tell them apart. */
export const REALM = 'cloudwright';

/**
 * 401: the request carries no usable credentials. The `www-authenticate` challenge follows RFC 6750 §3:
 * `error="invalid_token"` only when a token was actually presented, because §3.1 asks servers not to
 * send an error code to a client that simply did not authenticate.
 */
export class UnauthorizedError extends PublicError {
  override readonly name = 'UnauthorizedError';

  /** `detail` must never contain the presented token or any part of it. */
  constructor(detail: string, options: { readonly tokenPresented: boolean }) {
    const challenge = options.tokenPresented ? `Bearer realm="${REALM}", error="invalid_token"` : `Bearer realm="${REALM}"`;
    super(401, detail, { 'www-authenticate': challenge });
  }
}

/**
 * 403: the caller is known but may not do this. When the cause is a missing scope the RFC 6750
 * `insufficient_scope` challenge names it, so OAuth-aware clients can ask for a better token.
 */
export class ForbiddenError extends PublicError {
  override readonly name = 'ForbiddenError';

  constructor(detail: string, options: { readonly missingScope?: string } = {}) {
    const headers: Record<string, string> = options.missingScope ? { 'www-authenticate': `Bearer realm="${REALM}", error="insufficient_scope", scope="${options.missingScope}"` } : {};
    super(403, detail, headers);
  }
}

/** 400 for a scope list naming no scope or one the catalog lacks; OAuth's `invalid_scope` (RFC 6749 §5.2). */
export class InvalidScopeError extends BadRequestError {
  override readonly name = 'InvalidScopeError';
}
