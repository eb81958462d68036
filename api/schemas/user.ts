import { Type } from 'typebox';
import { DISPLAY_TEXT_PATTERN, DISPLAY_TEXT_RULE } from './display-text.ts';
import { DNS_SUBDOMAIN_PATTERN } from '../../src/apis/v1alpha1/strings.ts';

export const UserId = Type.String({
  minLength: 1,
  maxLength: 253,
  pattern: DNS_SUBDOMAIN_PATTERN,
  description: 'User id: lowercase letters, digits, dashes and dots (a Kubernetes resource name), e.g. `alice`.',
});

export const UserParams = Type.Object({ userId: UserId }, { additionalProperties: false });

export const UserBody = Type.Object(
  {
    user_id: UserId,
    display_name: Type.Optional(Type.String({ minLength: 1, maxLength: 128, pattern: DISPLAY_TEXT_PATTERN, description: 'Human-readable name (' + DISPLAY_TEXT_RULE + ').' })),
    email: Type.Optional(Type.String({ format: 'email', maxLength: 254, description: 'Contact address.' })),
    admin: Type.Optional(Type.Boolean({ description: 'Platform administrator; default false.' })),
  },
  { additionalProperties: false },
);

const Membership = Type.Object({
  project_id: Type.String(),
  role: Type.Union([Type.Literal('owner'), Type.Literal('member')]),
});

export const User = Type.Object(
  {
    user_id: Type.String(),
    display_name: Type.Union([Type.String(), Type.Null()]),
    email: Type.Union([Type.String(), Type.Null()]),
    admin: Type.Boolean({
      description: 'Platform administrator. A token acts as one only when it also carries the `admin` scope.',
    }),
    created_at: Type.String({ format: 'date-time', description: 'ISO 8601 UTC timestamp.' }),
    memberships: Type.Array(Membership, { description: 'Projects the user belongs to, with their role.' }),
  },
  { description: 'A user: the principal behind access tokens and project memberships.' },
);

/** The calling token, as `GET /v1/user` shows it. */
export const CallerToken = Type.Object({
  token_id: Type.String(),
  scopes: Type.Array(Type.String(), {
    description: 'The scopes this token is effective with (`admin` only for administrators).',
  }),
});
