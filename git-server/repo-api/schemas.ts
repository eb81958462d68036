import { Type } from 'typebox';

/** `/{owner}/{repo}` of every JSON API route (a `.git` suffix on the repository is accepted, as git hosts do). */
export const RepoParamsSchema = Type.Object({
  owner: Type.String({ minLength: 1, maxLength: 100, description: 'Repository owner.' }),
  repo: Type.String({ minLength: 1, maxLength: 104, description: 'Repository name.' }),
});

/** The JSON error body of every cw-git route (git-server/errors.ts). */
export const ErrorBodySchema = Type.Object({
  error: Type.String({ description: 'A stable code: repository_not_found, revision_not_found, path_not_found, invalid_request, store_unavailable, …' }),
  message: Type.String({ description: 'What went wrong, for people.' }),
  retryable: Type.Boolean({ description: 'True when the same request may succeed later (store_unavailable, draining).' }),
});

/** The 507 of a write that would store new objects past the repository's storage quota. */
export const STORAGE_QUOTA_ERROR = {
  507: Type.Object(ErrorBodySchema.properties, {
    description:
      "The objects this write adds would take the repository past `quota.repository_max_size`, or its owner's repositories together past `quota.owner_max_size` (`storage_quota_exceeded`); nothing was stored.",
  }),
};

/** The 429 of a write that waited its turn among the caller's or the owner's writes (repo-api/write/write-turns.ts); its description names the write turns' 503s. */
export const WRITE_TURN_ERROR = {
  429: Type.Object(ErrorBodySchema.properties, {
    description:
      'The caller has 2 writes running, or the repository’s owner 4, and this one waited 30 s for its turn (`owner_writes_limit`, `Retry-After`; 503 `writes_busy` past the instance’s 8; and 503 `write_deadline`, `Retry-After`, when a write’s git work ran past `api.write_deadline`, 5 min by default, and was stopped before it published anything); on routes taking more than 64 KiB, also the owner’s large bodies being read at once holding their share (`owner_bodies_limit`, `Retry-After`).',
  }),
};
