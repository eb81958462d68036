import type { FastifyRequest } from 'fastify';
import type { SyncedRepo } from '../plumbing/repo-cache.ts';
import { parseUrlRepoPath } from '../../src/repo-store/index.ts';
import type { RepoApiDependencies } from './dependencies.ts';

/** The route parameters every JSON API route has. */
export interface RepoParams {
  owner: string;
  repo: string;
}

/**
 * Runs `read` on the repository of the request's `/{owner}/{repo}`: its cached copy is first brought up to the
 * bucket's head (one conditional GET, as a fetch does, so a push through another instance is seen at once), and
 * held while `read` runs so eviction cannot pull it away. Throws `RepoNotFoundError` (404) for an unknown repository.
 */
export async function readRepo<T>(deps: RepoApiDependencies, request: FastifyRequest, read: (repo: SyncedRepo & { name: string }) => Promise<T>): Promise<T> {
  const { owner, repo } = request.params as RepoParams;
  const name = parseUrlRepoPath(owner, repo).full;
  const release = deps.cache.hold(name);
  try {
    const synced = await deps.cache.sync(name);
    return await read({ ...synced, name });
  } finally {
    release();
  }
}
