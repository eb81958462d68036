import { Type } from 'typebox';
import { DISPLAY_TEXT_PATTERN, DISPLAY_TEXT_RULE } from './display-text.ts';
import { SCOPE_NAMES } from '../../src/auth/index.ts';

const scopeList = SCOPE_NAMES.map((name) => `\`${name}\``).join(', ');

/** A scope name in a request: an unknown one is a 400 that lists the valid ones (problem-details.ts). */
export const ScopeName = Type.Unsafe<string>({ type: 'string', enum: [...SCOPE_NAMES], description: `One of ${scopeList}.` });

/** A token id in a path: `tok-…` for tokens made here, any resource name for tokens applied with kubectl. */
export const TokenParams = Type.Object(
  {
    tokenId: Type.String({
      minLength: 1,
      maxLength: 253,
      pattern: '^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$',
      description: 'The token id (`tok-…`), as listed by `GET /v1/tokens`.',
    }),
  },
  { additionalProperties: false },
);

export const TokenBody = Type.Object(
  {
    description: Type.String({
      minLength: 1,
      maxLength: 256,
      pattern: DISPLAY_TEXT_PATTERN,
      description: 'What the token is for, shown in listings (' + DISPLAY_TEXT_RULE + ').',
    }),
    scopes: Type.Array(ScopeName, {
      minItems: 1,
      maxItems: 32,
      description: 'Scopes to grant; each must be one the calling token holds itself (`admin` only for administrators).',
    }),
    expires_in_days: Type.Optional(Type.Integer({ minimum: 1, maximum: 365, description: 'Lifetime in days; omit for a token that does not expire.' })),
  },
  { additionalProperties: false },
);

export const Token = Type.Object(
  {
    token_id: Type.String({ description: 'Stable id of the token (never the token itself); use it to revoke.' }),
    description: Type.String(),
    scopes: Type.Array(Type.String(), { description: 'Scopes the token carries.' }),
    created_at: Type.String({ format: 'date-time', description: 'ISO 8601 UTC timestamp.' }),
    expires_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], {
      description: 'From this instant on the token is refused; null: it does not expire.',
    }),
    state: Type.Union([Type.Literal('active'), Type.Literal('expired'), Type.Literal('revoked')]),
    session: Type.Boolean({ description: 'A sign-in to the web console (held in its cookie), not a personal access token.' }),
  },
  { description: 'An access token as listings show it: never its value, never its hash.' },
);

export const CreatedToken = Type.Object({
  token: Token,
  access_token: Type.String({
    description: 'The token itself (`cwt_…`). Returned only in this response; store it now, it cannot be shown again.',
  }),
});
