// Creating and deleting repositories: `PUT /{owner}/{repo}` and `DELETE /{owner}/{repo}`. With the operator
// (`kubernetes.namespace` set) both go through a `Repository` custom resource whose controller owns the bucket
// prefix; without it, straight to the bucket.
import { Type } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { BranchName } from '../../src/apis/v1alpha1/repository.ts';
import type { RepoCache } from '../plumbing/repo-cache.ts';
import type { StorageQuota } from '../plumbing/storage-quota.ts';
import type { RepoStore } from '../../src/repo-store/index.ts';
import { parseRepoPath } from '../../src/repo-store/index.ts';
import type { RepositoryDirectory } from '../repositories/repository-directory.ts';
import { principalOf } from '../auth/index.ts';

export interface RepositoryRouteDependencies {
  readonly directory: RepositoryDirectory;
  readonly repos: RepoStore;
  readonly cache: RepoCache;
  readonly quota?: Pick<StorageQuota, 'repositoryDeleted'>;
}

const CreateBody = Type.Union([Type.Object({ default_branch: Type.Optional(BranchName) }, { additionalProperties: false }), Type.Null()]);

interface RepoParams {
  owner: string;
  repo: string;
}

export function repositoryRoutes(app: FastifyInstance, deps: RepositoryRouteDependencies): void {
  app.put<{ Params: RepoParams; Body: { default_branch?: string } | null }>('/:owner/:repo', { config: { scope: 'write' }, schema: { body: CreateBody } }, async (request, reply) => {
    const path = parseRepoPath(`${request.params.owner}/${request.params.repo}`);
    const defaultBranch = request.body?.default_branch ?? 'main';
    // A project's token creates the project's repository (its resource in the project's namespace).
    const { project } = principalOf(request);
    await deps.directory.create(path, { defaultBranch, ...(project ? { namespace: project } : {}) });
    const head = await deps.repos.readHead(`${path.owner}/${path.name}`);
    return reply.code(201).send({ repository: summary(head) });
  });

  app.delete<{ Params: RepoParams }>('/:owner/:repo', { config: { scope: 'write' } }, async (request, reply) => {
    const path = parseRepoPath(`${request.params.owner}/${request.params.repo}`);
    const { project } = principalOf(request);
    await deps.directory.delete(path, project ? { namespace: project } : {});
    await deps.cache.evict(`${path.owner}/${path.name}`);
    deps.quota?.repositoryDeleted(path);
    return reply.code(204).send();
  });
}

/** What a client learns about a repository it created. */
export function summary(head: Awaited<ReturnType<RepoStore['readHead']>>) {
  return {
    full_name: head.repo,
    default_branch: head.headRef.replace(/^refs\/heads\//, ''),
    object_format: head.objectFormat,
    seq: String(head.seq),
    pristine: head.seq === 0,
    created_at: head.createdAt,
  };
}
