import { Type, type Static } from 'typebox';
import type { CustomResource, KindDescriptor } from '../kind-descriptor.ts';
import { Conditions, ObservedGeneration } from './conditions.ts';
import { CATEGORY } from './group-version.ts';
import { DnsSubdomain, immutable, Text, Timestamp } from './strings.ts';

/** A scope name such as `domain:read`: lowercase words joined by `:`. */
export const TokenScope = Type.String({
  minLength: 1,
  maxLength: 64,
  pattern: '^[a-z][a-z0-9_-]*(:[a-z][a-z0-9_-]*)*$',
  description: 'A scope such as domain:read or domain:write.',
});

/** The stored form of a token shown once at creation: its SHA-256, set once (AccessToken and GitToken). */
export const TokenHash = Type.String({
  minLength: 64,
  maxLength: 64,
  pattern: '^[0-9a-f]{64}$',
  description: 'Lowercase hex SHA-256 of the token. The token itself is shown once at creation and never stored.',
  ...immutable('tokenHash'),
});

/** Revocation of a token, one-way (AccessToken and GitToken). */
export const Revoked = Type.Boolean({
  default: false,
  description: 'A revoked token is refused. Revocation is final.',
  // One-way, so a leaked token cannot be brought back by re-applying an old manifest.
  'x-kubernetes-validations': [{ rule: 'self || !oldSelf', message: 'a revoked token cannot be restored' }],
});

export const AccessTokenSpec = Type.Object({
  user: DnsSubdomain({ description: 'Name of the User the token acts as.', ...immutable('user') }),
  description: Text({ maxLength: 256, description: 'What the token is for, as its owner described it.' }),
  scopes: Type.Array(TokenScope, {
    maxItems: 64,
    uniqueItems: true,
    description: 'Scopes granted; requests needing any other scope are refused.',
  }),
  tokenHash: TokenHash,
  expiresAt: Type.Optional(Timestamp({ description: 'After this instant the token is refused; absent: no expiry.' })),
  session: Type.Optional(
    Type.Object(
      {
        idleTimeoutSeconds: Type.Integer({
          minimum: 60,
          maximum: 604_800,
          format: 'int32',
          description: 'The session is refused once this long has passed since its last use (status.lastUsedAt, else its creation).',
        }),
      },
      {
        description: 'Present on a person’s sign-in to the web console (held in a cookie) rather than a personal access token; it also expires when left unused.',
        ...immutable('session'),
      },
    ),
  ),
  revoked: Type.Optional(Revoked),
});
export type AccessTokenSpec = Static<typeof AccessTokenSpec>;

export const AccessTokenStatus = Type.Object({
  lastUsedAt: Type.Optional(Timestamp({ description: 'When the token last authenticated a request (coarse).' })),
  conditions: Type.Optional(Conditions),
  observedGeneration: Type.Optional(ObservedGeneration),
});
export type AccessTokenStatus = Static<typeof AccessTokenStatus>;

/** Condition types of an AccessToken. */
export const AccessTokenConditions = {
  /** The token can authenticate (False: Revoked, Expired, UserNotFound). */
  Ready: 'Ready',
} as const;

export type AccessToken = CustomResource<'AccessToken', AccessTokenSpec, AccessTokenStatus>;

/**
 * A personal access token (`cwt_…`). Cluster-scoped: a token reaches the projects its user can access,
 * not one namespace. Only the SHA-256 of the token is stored; the API server looks tokens up by
 * `spec.tokenHash`.
 */
export const AccessTokenKind: KindDescriptor<'AccessToken', typeof AccessTokenSpec, typeof AccessTokenStatus> = {
  kind: 'AccessToken',
  plural: 'accesstokens',
  singular: 'accesstoken',
  shortNames: ['cwtoken'],
  scope: 'Cluster',
  categories: [CATEGORY],
  description: 'A Cloudwright access token; only its SHA-256 hash is stored.',
  spec: AccessTokenSpec,
  status: AccessTokenStatus,
  printerColumns: [
    { name: 'User', type: 'string', jsonPath: '.spec.user', description: 'User the token acts as.' },
    { name: 'Revoked', type: 'boolean', jsonPath: '.spec.revoked', description: 'Whether the token was revoked.' },
    { name: 'Expires', type: 'date', jsonPath: '.spec.expiresAt', description: 'Expiry, if any.' },
    { name: 'Last Used', type: 'date', jsonPath: '.status.lastUsedAt', description: 'Last authenticated request.' },
  ],
};
