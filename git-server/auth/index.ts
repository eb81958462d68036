// cw-git authentication: the token formats, and the Fastify plugin that checks them on every route.
export { AUTHENTICATE_CHALLENGE, ForbiddenError, UnauthenticatedError } from './errors.ts';
export { gitAuth, principalOf, requireReach, requireScope, type GitAuthOptions, type GitPrincipal } from './git-auth.ts';
export { tokenFromAuthorization } from './credentials.ts';
export { ProjectTokens, type ProjectTokenGrant, type ProjectTokenSource } from './project-tokens.ts';
export { GIT_SCOPES, TOKEN_AUDIENCE, mintToken, verifyToken, type GitScope, type MintRequest, type TokenClaims } from './token.ts';
