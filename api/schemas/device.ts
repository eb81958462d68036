import { Type } from 'typebox';
import { ScopeName } from './token.ts';

/** The one grant type the device token endpoint accepts (RFC 8628 §3.4). */
export const DEVICE_CODE_GRANT_TYPE = 'urn:ietf:params:oauth:grant-type:device_code';

// RFC 8628 clients send form bodies and include `client_id` (§3.1, §3.4). This API has one public client
// and no client registration, so `client_id` is accepted and ignored; any other parameter is refused, as
// on every other route of this API.
const ClientId = Type.Optional(Type.String({ maxLength: 256, description: 'Accepted and ignored: the API registers no OAuth clients.' }));

/**
 * The OAuth requests take parameters they do not know and ignore them (RFC 6749 §3.1, §3.2: the server MUST),
 * unlike the rest of the API: OAuth client libraries add their own (`client_secret`, `scope` on a token
 * request).
 */
const IGNORES_UNRECOGNIZED = { additionalProperties: true, description: 'Unrecognized parameters are ignored (RFC 6749 §3.2).' } as const;

export const DeviceCodeBody = Type.Object(
  {
    scope: Type.String({
      minLength: 1,
      maxLength: 1024,
      description: 'The scopes the device asks for, separated by spaces (the OAuth `scope` parameter), e.g. `projects:read apps:write`.',
    }),
    client_id: ClientId,
  },
  IGNORES_UNRECOGNIZED,
);

export const DeviceAuthorization = Type.Object(
  {
    device_code: Type.String({ description: 'The device keeps this secret and polls `POST /v1/device/token` with it.' }),
    user_code: Type.String({ description: 'What the user types on the verification page, `XXXX-XXXX`.' }),
    verification_uri: Type.String({ description: 'Where the user approves the sign-in.' }),
    verification_uri_complete: Type.String({ description: 'The verification URI with the user code filled in (for a link or QR code).' }),
    expires_in: Type.Integer({ description: 'Seconds until the codes expire.' }),
    interval: Type.Integer({ description: 'Minimum seconds between two polls of the token endpoint.' }),
  },
  { description: 'The RFC 8628 §3.2 device authorization response (unwrapped, as OAuth clients expect).' },
);

export const DeviceTokenBody = Type.Object(
  {
    grant_type: Type.Literal(DEVICE_CODE_GRANT_TYPE),
    device_code: Type.String({ minLength: 1, maxLength: 128, description: 'The `device_code` from `POST /v1/device/code`.' }),
    client_id: ClientId,
  },
  IGNORES_UNRECOGNIZED,
);

export const DeviceToken = Type.Object(
  {
    access_token: Type.String({ description: 'A `cwt_` token acting as the approving user. Returned once.' }),
    token_type: Type.Literal('Bearer'),
    scope: Type.String({ description: 'The granted scopes, separated by spaces.' }),
    expires_in: Type.Optional(Type.Integer({ description: 'Seconds until the token expires; absent when it does not.' })),
  },
  { description: 'RFC 6749 §5.1 access token response.' },
);

export const OAuthError = Type.Object(
  {
    error: Type.Union(
      [
        Type.Literal('authorization_pending'),
        Type.Literal('slow_down'),
        Type.Literal('access_denied'),
        Type.Literal('expired_token'),
        Type.Literal('invalid_grant'),
        Type.Literal('invalid_request'),
        Type.Literal('unsupported_grant_type'),
      ],
      { description: 'RFC 8628 §3.5 / RFC 6749 §5.2 error code; clients branch on it.' },
    ),
    error_description: Type.String({ description: 'The same in words.' }),
  },
  {
    description:
      'OAuth error (RFC 8628 §3.5), the one exception to problem details in this API: `authorization_pending` ' +
      '(poll again after `interval`), `slow_down` (add 5 s to the interval for good), `access_denied`, ' +
      '`expired_token` (start over), `invalid_grant` (unknown device code, or its token was already handed ' +
      'out), `invalid_request` (missing or extra parameters), `unsupported_grant_type`.',
  },
);

export const UserCodeBody = Type.Object(
  {
    user_code: Type.String({
      minLength: 1,
      maxLength: 32,
      description: 'The code the device shows (`XXXX-XXXX`); case, dashes and spaces are ignored.',
    }),
  },
  { additionalProperties: false },
);

export const ApproveBody = Type.Object(
  {
    user_code: UserCodeBody.properties.user_code,
    scopes: Type.Optional(
      Type.Array(ScopeName, {
        maxItems: 64,
        description: 'The scopes you reviewed (as `GET /v1/device/requests/{user_code}` shows them). When given, an approval of a request for any other scopes is refused with 409.',
      }),
    ),
  },
  { additionalProperties: false },
);

export const DeviceRequestParams = Type.Object({ userCode: Type.String({ minLength: 1, maxLength: 32, description: 'The code the device shows, `XXXX-XXXX`.' }) });

export const DeviceRequest = Type.Object(
  {
    user_code: Type.String({ description: '`XXXX-XXXX`.' }),
    scopes: Type.Array(Type.String(), { description: 'What the device asks for: the token it gets carries exactly these.' }),
    expires_at: Type.String({ format: 'date-time', description: 'After this instant the request can no longer be answered.' }),
  },
  { description: 'A device sign-in waiting for an answer: what approving it would grant.' },
);

/** The verification page's query: lenient (a browser page), so unknown parameters are ignored. */
export const DevicePageQuery = Type.Object({ user_code: Type.Optional(Type.String({ maxLength: 32 })) });

/**
 * A refused device authorization request: a problem detail that also carries the OAuth error members, since
 * RFC 8628 §3.2 has this endpoint answer errors as the token endpoint does (RFC 6749 §5.2).
 */
export const DeviceAuthorizationProblem = {
  description: 'RFC 9457 problem details with the OAuth members `error` and `error_description` (application/problem+json).',
  allOf: [
    { $ref: 'Problem#' },
    Type.Object({
      error: Type.Union([Type.Literal('invalid_scope'), Type.Literal('invalid_request')], {
        description: 'RFC 6749 §5.2 error code: `invalid_scope` for an unknown or missing scope, `invalid_request` for anything else.',
      }),
      error_description: Type.String({ description: 'The same as `detail`.' }),
    }),
  ],
};
