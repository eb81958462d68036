// The repositories no project token reaches, as cw-git learns them from the real apiserver: the Repository
// resources in its own namespace, not one of the same owner and name in a project's namespace.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Repository } from '../../src/apis/v1alpha1/repository.ts';
import { objectClient } from '../../src/kube/index.ts';
import { testConnection, testNamespace } from '../../src/kube/testing/test-kube.ts';
import { REPOSITORIES } from '../../src/platform/resources.ts';
import { parseRepoPath } from '../../src/repo-store/index.ts';
import { eventually } from '../../e2e/harness/runtime-stack.ts';
import { KubeProjectTokenSource } from './kube-project-token-source.ts';

const conn = testConnection();
const repositories = objectClient<Repository>(conn, REPOSITORIES);
let service: { name: string; remove: () => Promise<void> };
let project: { name: string; remove: () => Promise<void> };
let source: KubeProjectTokenSource;

beforeAll(async () => {
  [service, project] = await Promise.all([testNamespace(conn, 'git-own'), testNamespace(conn, 'git-proj')]);
  source = new KubeProjectTokenSource(conn, () => {}, service.name);
  source.start();
  await source.waitForSync(AbortSignal.timeout(30_000));
});

afterAll(async () => {
  source?.stop();
  await Promise.all([service?.remove(), project?.remove()]);
});

describe("cw-git's own repositories", () => {
  it('are those of its namespace, learnt as they are made, whatever a project holds under another name', async () => {
    expect(source.synced()).toBe(true);
    await repositories.create({ metadata: { name: 'acme-site', namespace: service.name }, spec: { owner: 'acme', name: 'site', defaultBranch: 'main' } });
    await repositories.create({ metadata: { name: 'acme-docs', namespace: project.name }, spec: { owner: 'acme', name: 'docs', defaultBranch: 'main' } });
    await eventually(
      "the service's repository known",
      async () => source.heldByService(parseRepoPath('acme/site')),
      (held) => held,
    );
    expect(source.heldByService(parseRepoPath('acme/docs'))).toBe(false);
    expect(source.heldByService(parseRepoPath('acme/other'))).toBe(false);
  });
});
