import { Type, type Static } from 'typebox';
import type { CustomResource, KindDescriptor } from '../kind-descriptor.ts';
import { CATEGORY } from './group-version.ts';
import { DisplayName } from './strings.ts';

export const UserSpec = Type.Object({
  displayName: Type.Optional(DisplayName({ description: 'Human-readable name.' })),
  email: Type.Optional(Type.String({ format: 'email', maxLength: 254, description: 'Contact address.' })),
  admin: Type.Optional(
    Type.Boolean({
      default: false,
      description: 'Platform administrator: may act on every project. Defaults to false.',
    }),
  ),
  identities: Type.Optional(
    Type.Array(
      Type.Object({
        issuer: Type.String({ minLength: 1, maxLength: 512, description: 'The OpenID provider (its issuer URL).' }),
        subject: Type.String({ minLength: 1, maxLength: 255, description: 'The account at that provider (the ID token’s sub).' }),
      }),
      {
        maxItems: 8,
        description: 'OpenID Connect accounts that sign in to the console as this user. The API adds one at a first sign-in it matched by verified email; an administrator may add them.',
      },
    ),
  ),
});
export type UserSpec = Static<typeof UserSpec>;

export type User = CustomResource<'User', UserSpec>;

/**
 * A person or robot that holds access tokens and project memberships. Cluster-scoped; the name is the
 * user id that `Project.spec.members[].user` and `AccessToken.spec.user` refer to. Nothing reconciles a
 * User, so it has no status.
 */
export const UserKind: KindDescriptor<'User', typeof UserSpec, undefined> = {
  kind: 'User',
  plural: 'users',
  singular: 'user',
  shortNames: ['cwuser'],
  scope: 'Cluster',
  categories: [CATEGORY],
  description: 'A Cloudwright user: the principal behind access tokens and project memberships.',
  spec: UserSpec,
  status: undefined,
  printerColumns: [
    { name: 'Display Name', type: 'string', jsonPath: '.spec.displayName', description: 'Human-readable name.' },
    { name: 'Email', type: 'string', jsonPath: '.spec.email', description: 'Contact address.' },
    { name: 'Admin', type: 'boolean', jsonPath: '.spec.admin', description: 'Platform administrator.' },
  ],
};
