import { Type } from 'typebox';
import { DISPLAY_TEXT_PATTERN, DISPLAY_TEXT_RULE } from './display-text.ts';
import { ProjectId } from './project.ts';

const GitScope = Type.Unsafe<'read' | 'write'>({
  type: 'string',
  enum: ['read', 'write'],
  description: 'read: clone, fetch, LFS downloads and the repository read API; write: also push, LFS uploads, the write API, creating and deleting repositories (implies read).',
});

export const GitTokenParams = Type.Object(
  {
    projectId: ProjectId,
    tokenId: Type.String({ minLength: 1, maxLength: 253, pattern: '^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$', description: 'The token id (`gtk-…`), as listed.' }),
  },
  { additionalProperties: false },
);

export const GitTokenBody = Type.Object(
  {
    description: Type.String({ minLength: 1, maxLength: 256, pattern: DISPLAY_TEXT_PATTERN, description: `What the token is for, shown in listings (${DISPLAY_TEXT_RULE}).` }),
    scopes: Type.Array(GitScope, { minItems: 1, maxItems: 2, uniqueItems: true, description: 'What the token may do with the project’s repositories.' }),
    expires_in_seconds: Type.Optional(
      Type.Integer({
        minimum: 60,
        maximum: 366 * 86_400,
        description: 'Lifetime in seconds (60 s to 366 days); omit for a token that does not expire. Never later than the calling token’s own expiry.',
      }),
    ),
  },
  { additionalProperties: false },
);

const nullableString = (description: string, format?: string) => Type.Unsafe<string | null>({ type: ['string', 'null'], ...(format ? { format } : {}), description });

export const GitTokenView = Type.Object(
  {
    token_id: Type.String({ description: 'Stable id of the token (never the token itself); use it to revoke.' }),
    description: Type.String(),
    scopes: Type.Array(GitScope),
    user: Type.String({ description: 'The member who made it: it works only while they are a member of the project, and acts as them (the pusher of its pushes).' }),
    created_at: Type.String({ format: 'date-time', description: 'ISO 8601 UTC timestamp.' }),
    expires_at: nullableString('From this instant on the token is refused; null: it does not expire.', 'date-time'),
    state: Type.Unsafe<'active' | 'expired' | 'revoked'>({ type: 'string', enum: ['active', 'expired', 'revoked'] }),
  },
  { description: 'A git token as listings show it: never its value, never its hash.' },
);

const gitUrl = nullableString(
  'The repository service as users reach it (CW_GIT_PUBLIC_URL); the project’s repositories are `{git_url}/{project_id}/{repository}`. null when the platform does not say.',
);

export const CreatedGitToken = Type.Object({
  token: GitTokenView,
  git_token: Type.String({
    description: 'The token itself (`cwg_…`), the password of any user name for git and git-lfs (or `Authorization: Bearer`). Returned only in this response; store it now, it cannot be shown again.',
  }),
  git_url: gitUrl,
});

export const GitTokenList = Type.Object({ git_url: gitUrl, tokens: Type.Array(GitTokenView) });
