// The device-flow token endpoint is the one place this API does not answer RFC 9457 problem details:
// RFC 8628 §3.5 (after RFC 6749 §5.2) fixes its error body as `{error, error_description}` with HTTP 400,
// and OAuth client libraries — ours included — branch on `error`. Every other route, the device approval
// routes included, answers problem details.

/** The `error` codes the device-flow token endpoint answers (RFC 8628 §3.5, RFC 6749 §5.2). */
export type DeviceTokenErrorCode =
  /** The user has not decided yet; poll again after the interval. */
  | 'authorization_pending'
  /** Like `authorization_pending`, but the client polled too fast: add 5 s to the interval from now on. */
  | 'slow_down'
  /** The device code expired before it was redeemed; start a new authorization. */
  | 'expired_token'
  /** The user denied the request. */
  | 'access_denied'
  /** The device code is unknown or was already exchanged for a token. */
  | 'invalid_grant';

/** An OAuth error body (RFC 6749 §5.2). */
export interface OAuthErrorBody {
  readonly error: DeviceTokenErrorCode;
  readonly error_description: string;
}

/** A successful token response (RFC 6749 §5.1). */
export interface OAuthTokenBody {
  readonly access_token: string;
  readonly token_type: 'Bearer';
  /** The granted scopes separated by spaces (RFC 6749 §3.3). */
  readonly scope: string;
  /** Seconds until the token expires; absent when it does not. */
  readonly expires_in?: number;
}

/**
 * What the token endpoint sends back, status included, so the route only copies it out. `tokenId` is for
 * the audit log; it is not part of the body.
 */
export type DeviceTokenResponse = { readonly status: 200; readonly body: OAuthTokenBody; readonly tokenId: string } | { readonly status: 400; readonly body: OAuthErrorBody };

/** A 400 OAuth error response. */
export function oauthError(error: DeviceTokenErrorCode, description: string): DeviceTokenResponse {
  return { status: 400, body: { error, error_description: description } };
}
