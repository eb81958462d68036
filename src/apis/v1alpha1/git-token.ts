import { Type, type Static } from 'typebox';
import type { CustomResource, KindDescriptor } from '../kind-descriptor.ts';
import { Revoked, TokenHash } from './access-token.ts';
import { CATEGORY } from './group-version.ts';
import { DnsSubdomain, immutable, Text, Timestamp } from './strings.ts';

/** What a git token may do with its project's repositories: `read` (fetch, clone, LFS download, read API) or `write` (also push); write implies read. */
export const GitTokenScope = Type.Union([Type.Literal('read'), Type.Literal('write')], {
  description: 'read: fetch, clone, LFS downloads and the read API; write: also push, LFS uploads, the write API and creating or deleting repositories. write implies read.',
});
export type GitTokenScope = Static<typeof GitTokenScope>;

export const GitTokenSpec = Type.Object(
  {
    user: DnsSubdomain({ description: 'The User who made the token; it works only while that user is a member of the project.', ...immutable('user') }),
    description: Text({ maxLength: 256, description: 'What the token is for, as its maker described it.' }),
    scopes: Type.Array(GitTokenScope, { minItems: 1, maxItems: 2, uniqueItems: true, description: 'What the token may do.' }),
    tokenHash: TokenHash,
    expiresAt: Type.Optional(Timestamp({ description: 'From this instant on the token is refused; absent: no expiry. Cannot be changed once set.', ...immutable('expiresAt') })),
    revoked: Type.Optional(Revoked),
  },
  {
    // The field rule above holds only while the field exists: removing an expiry would otherwise lift it.
    'x-kubernetes-validations': [{ rule: '!has(oldSelf.expiresAt) || has(self.expiresAt)', message: 'expiresAt cannot be removed' }],
  },
);
export type GitTokenSpec = Static<typeof GitTokenSpec>;

export type GitToken = CustomResource<'GitToken', GitTokenSpec>;

/**
 * A project's git token (`cwg_…`) for the repository service. Namespaced in the project's namespace, and it
 * reaches only that project's repositories (the owner named like the project), whatever its spec says: cw-git
 * derives the reach from the namespace, so a token applied with kubectl in one project cannot reach another's.
 * Only the SHA-256 of the token is stored; cw-git looks tokens up by `spec.tokenHash`.
 */
export const GitTokenKind: KindDescriptor<'GitToken', typeof GitTokenSpec, undefined> = {
  kind: 'GitToken',
  plural: 'gittokens',
  singular: 'gittoken',
  shortNames: ['cwgittoken'],
  scope: 'Namespaced',
  categories: [CATEGORY],
  description: "A project's token for the repository service (git, LFS, the repository API); only its SHA-256 hash is stored.",
  spec: GitTokenSpec,
  status: undefined,
  printerColumns: [
    { name: 'User', type: 'string', jsonPath: '.spec.user', description: 'The user who made it.' },
    { name: 'Revoked', type: 'boolean', jsonPath: '.spec.revoked', description: 'Whether the token was revoked.' },
    { name: 'Expires', type: 'date', jsonPath: '.spec.expiresAt', description: 'Expiry, if any.' },
    { name: 'Description', type: 'string', jsonPath: '.spec.description', description: 'What it is for.', priority: 1 },
  ],
};
