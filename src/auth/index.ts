// The authentication and authorisation domain of the platform API: no HTTP, no Kubernetes. Test helpers
// (in-memory stores, contract suites) are imported from their own files, not from here.

export { authenticate, authorize, bearerToken, requireScope, resolvePrincipal, type AccessRequirement, type Principal } from './authenticate.ts';
export { PrincipalCache } from './principal-cache.ts';
export {
  createDeviceFlow,
  DEFAULT_MAX_STARTS_PER_LIFETIME,
  DEVICE_CODE_LIFETIME_SECONDS,
  INITIAL_POLL_INTERVAL_SECONDS,
  type DeviceAuthorizationRequest,
  type DeviceAuthorizationResponse,
  type DeviceFlow,
  type DeviceFlowOptions,
} from './device-flow.ts';
export { POLL_LEEWAY_MS, SLOW_DOWN_STEP_SECONDS } from './device-token-poll.ts';
export { ForbiddenError, InvalidScopeError, REALM, UnauthorizedError } from './errors.ts';
export { assertCanGrant, issueToken, mintToken, type IssuedToken, type TokenRequest } from './issue-token.ts';
export type { DeviceTokenErrorCode, DeviceTokenResponse, OAuthErrorBody, OAuthTokenBody } from './oauth-error.ts';
export {
  createPersonalToken,
  listPersonalTokens,
  MAX_ACTIVE_TOKENS_PER_USER,
  revokeOwnToken,
  revokePersonalToken,
  summarize,
  type PersonalTokenRequest,
  type TokenSummary,
} from './personal-tokens.ts';
export type { DeviceGrant, DeviceGrantState, DeviceGrantStore, ProjectRole, StoredDeviceGrant, TokenRecord, TokenStore, UserRecord } from './ports.ts';
export { hasScope, isScope, knownScopes, parseScopes, SCOPE_NAMES, SCOPES, type Scope } from './scopes.ts';
export {
  generateToken,
  hashToken,
  isTokenId,
  newTokenId,
  parseToken,
  redactToken,
  TOKEN_ID_PATTERN,
  TOKEN_LENGTH,
  TOKEN_PREFIX,
  tokenHashesEqual,
  type ParsedToken,
  type PlaintextToken,
  type TokenRejection,
} from './token.ts';
