// Repositories driven through the Kubernetes API with cw-operator running as a process (as `make dev` and
// the chart run it): `kubectl`-style Repository resources, and the KubeRepositoryDirectory that cw-git uses
// for `PUT`/`DELETE /{owner}/{repo}`, checked by the same contract as the bucket directory.
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { REPOSITORY_FINALIZER, type Repository } from '../src/apis/v1alpha1/repository.ts';
import { findCondition } from '../src/conditions/index.ts';
import { KubeApiError, loadKubeConnection, objectClient } from '../src/kube/index.ts';
import { S3ObjectStore } from '../src/object-store/s3-object-store.ts';
import { REPOSITORIES } from '../src/platform/resources.ts';
import { RepoNotFoundError, RepoStore, parseRepoPath } from '../src/repo-store/index.ts';
import { newRepoName } from '../src/repo-store/testing/repo-store-scenarios.ts';
import { KubeRepositoryDirectory, RepositoryPendingError } from '../git-server/repositories/index.ts';
import { describeRepositoryDirectoryContract, objectKeys } from '../git-server/repositories/testing/repository-directory-contract.ts';
import { createTestNamespace } from './harness/namespace.ts';
import type { Service } from './harness/process.ts';
import { eventually, s3Env, startOperator } from './harness/runtime-stack.ts';

const conn = loadKubeConnection(inject('kubeconfig'));
const client = objectClient<Repository>(conn, REPOSITORIES);
const objects = new S3ObjectStore({ config: inject('s3'), bucket: inject('bucket') });
const repos = new RepoStore({ store: objects });
const running: Service[] = [];
let namespace = '';

beforeAll(async () => {
  namespace = await createTestNamespace(conn, 'repos');
  // The operator's repository controller reads the bucket from its environment, which startOperator passes on.
  Object.assign(process.env, { ...s3Env(), CW_GIT_BUCKET: inject('bucket') });
  await startOperator(namespace, running);
}, 60_000);
afterAll(async () => Promise.all(running.map((s) => s.stop(5_000))));

function ready(r: Repository | undefined) {
  return r?.status?.observedGeneration === r?.metadata?.generation ? findCondition(r?.status?.conditions, 'Ready') : undefined;
}

describe('Repository resources applied with the Kubernetes API', { timeout: 60_000 }, () => {
  it('creates the repository in the bucket and reports it Ready and pristine; deleting it deletes the data', async () => {
    const full = newRepoName();
    const { owner, name } = parseRepoPath(full);
    await client.create({ metadata: { name: 'site', namespace }, spec: { owner, name } });
    const created = await eventually(
      'site Ready',
      () => client.get(namespace, 'site'),
      (r) => ready(r)?.status === 'True',
    );
    expect(ready(created)).toMatchObject({ reason: 'Available' });
    expect(created?.spec.defaultBranch).toBe('main'); // defaulted by the apiserver from the schema
    expect(created?.status).toMatchObject({ headSeq: '0', pristine: true });
    expect(created?.metadata?.finalizers).toEqual([REPOSITORY_FINALIZER]);
    const head = await repos.readHead(full);
    expect(head).toMatchObject({ repo: full, seq: 0, headRef: 'refs/heads/main', repoId: created?.status?.repoId });
    expect(await objectKeys(objects, full)).toEqual([`repos/${full}/manifest.json`]);

    await client.delete(namespace, 'site');
    await eventually(
      'site gone',
      () => client.get(namespace, 'site'),
      (r) => r === undefined,
    );
    await expect(repos.readHead(full)).rejects.toBeInstanceOf(RepoNotFoundError);
    expect(await objectKeys(objects, full)).toEqual([]);
  });

  it('reports NameConflict for a second resource with the same owner/name and leaves the first alone', async () => {
    const full = newRepoName();
    const { owner, name } = parseRepoPath(full);
    await client.create({ metadata: { name: 'first', namespace }, spec: { owner, name } });
    const first = await eventually(
      'first Ready',
      () => client.get(namespace, 'first'),
      (r) => ready(r)?.status === 'True',
    );
    await client.create({ metadata: { name: 'copy', namespace }, spec: { owner, name, defaultBranch: 'dev' } });
    const copy = await eventually(
      'copy NameConflict',
      () => client.get(namespace, 'copy'),
      (r) => ready(r)?.reason === 'NameConflict',
    );
    expect(ready(copy)?.status).toBe('False');
    const head = await repos.readHead(full);
    expect({ repoId: head.repoId, headRef: head.headRef }).toEqual({ repoId: first?.status?.repoId, headRef: 'refs/heads/main' });
    await client.delete(namespace, 'copy');
    await eventually(
      'copy gone',
      () => client.get(namespace, 'copy'),
      (r) => r === undefined,
    );
    expect((await repos.readHead(full)).repoId).toBe(first?.status?.repoId);
  });

  it('is refused by the apiserver for names the store cannot hold, and keeps owner, name and default branch immutable', async () => {
    for (const [owner, name, message] of [
      ['acme', 'app.git', 'must not end with .git'],
      ['acme', 'a..b', 'spec.name'],
      ['-acme', 'app', 'spec.owner'],
    ] as const) {
      const error = await client.create({ metadata: { name: 'bad', namespace }, spec: { owner, name } }).catch((e: unknown) => e);
      expect(error, `${owner}/${name}`).toBeInstanceOf(KubeApiError);
      expect((error as KubeApiError).code).toBe(422);
      expect((error as KubeApiError).message).toContain(message);
    }
    const { owner, name } = parseRepoPath(newRepoName());
    await client.create({ metadata: { name: 'fixed', namespace }, spec: { owner, name } });
    for (const spec of [{ defaultBranch: 'dev' }, { name: 'other' }]) {
      const error = await client.patch(namespace, 'fixed', { spec }).catch((e: unknown) => e);
      expect((error as KubeApiError).code, JSON.stringify(spec)).toBe(422);
      expect((error as KubeApiError).message).toContain('is immutable');
    }
    await client.delete(namespace, 'fixed');
  });
});

describeRepositoryDirectoryContract('KubeRepositoryDirectory with cw-operator', () => ({
  directory: new KubeRepositoryDirectory({ kube: conn, namespace, timeoutMs: 20_000 }),
  repos,
  objects,
}));

describe('KubeRepositoryDirectory', { timeout: 30_000 }, () => {
  it('withdraws a create nobody answers within the bound and says it may be retried', async () => {
    const other = await createTestNamespace(conn, 'norepoctl'); // no operator watches it
    const directory = new KubeRepositoryDirectory({ kube: conn, namespace: other, timeoutMs: 1_000 });
    const repo = parseRepoPath(newRepoName());
    const error = await directory.create(repo).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RepositoryPendingError);
    expect(error).toMatchObject({ status: 503, retryable: true, message: expect.stringContaining('was not ready within 1 s') });
    expect((await client.list(other)).items).toEqual([]);
    await expect(directory.delete(repo)).rejects.toBeInstanceOf(RepoNotFoundError);
  });

  it('puts a project’s repository in the project’s namespace, and deletes it only from there when the project asks', async () => {
    const elsewhere = await createTestNamespace(conn, 'cwgitns'); // cw-git's own namespace: nothing is made there
    const directory = new KubeRepositoryDirectory({ kube: conn, namespace: elsewhere, timeoutMs: 20_000 });
    const repo = parseRepoPath(newRepoName());
    await directory.create(repo, { namespace });
    const made = (await client.list(namespace)).items.filter((r) => r.spec.owner === repo.owner && r.spec.name === repo.name);
    expect(made).toHaveLength(1);
    expect((await client.list(elsewhere)).items).toEqual([]);
    expect((await repos.readHead(repo.full)).repoId).toBe(made[0]?.status?.repoId);
    // Another project's token finds nothing of it to delete; its own project's does, and so does an unrestricted one.
    await expect(directory.delete(repo, { namespace: elsewhere })).rejects.toBeInstanceOf(RepoNotFoundError);
    await directory.delete(repo, { namespace });
    await expect(repos.readHead(repo.full)).rejects.toBeInstanceOf(RepoNotFoundError);
    const again = parseRepoPath(newRepoName());
    await directory.create(again, { namespace });
    await directory.delete(again);
    expect((await client.list(namespace)).items.filter((r) => r.spec.owner === again.owner && r.spec.name === again.name)).toEqual([]);
  });
});
