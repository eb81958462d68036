// cw-git authentication: the token format, and the Fastify plugin that checks it on every route.
export { AUTHENTICATE_CHALLENGE, ForbiddenError, UnauthenticatedError } from './errors.ts';
export { gitAuth, principalOf, requireScope, type GitAuthOptions, type GitPrincipal } from './git-auth.ts';
export { tokenFromAuthorization } from './credentials.ts';
export { GIT_SCOPES, TOKEN_AUDIENCE, mintToken, verifyToken, type GitScope, type MintRequest, type TokenClaims } from './token.ts';
