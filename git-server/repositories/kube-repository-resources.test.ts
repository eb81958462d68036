import { describe, expect, it } from 'vitest';
import type { Repository } from '../../src/apis/v1alpha1/repository.ts';
import type { KubeList, ObjectClient } from '../../src/kube/index.ts';
import { parseRepoPath } from '../../src/repo-store/index.ts';
import { KubeRepositoryResources } from './kube-repository-resources.ts';

const resource = (namespace: string, name: string, owner: string, repo: string): Repository => ({ metadata: { namespace, name }, spec: { owner, name: repo } });

/** The one call `all` makes, answered from a fixed list (the rest of the client is never reached here). */
function listing(items: Repository[]): ObjectClient<Repository> {
  return { list: async (): Promise<KubeList<Repository>> => ({ items }) } as unknown as ObjectClient<Repository>;
}

describe('KubeRepositoryResources', () => {
  it('looks for a repository in its project’s namespace (the owner, when it is a namespace name) and cw-git’s', () => {
    const resources = new KubeRepositoryResources(listing([]), 'cloudwright-git');
    expect(resources.placesOf(parseRepoPath('acme/site'))).toEqual(['acme', 'cloudwright-git']);
    expect(resources.placesOf(parseRepoPath('Acme/site'))).toEqual(['cloudwright-git']);
    expect(resources.placesOf(parseRepoPath('a_b/site'))).toEqual(['cloudwright-git']);
    expect(resources.placesOf(parseRepoPath(`${'a'.repeat(64)}/site`))).toEqual(['cloudwright-git']);
    expect(resources.placesOf(parseRepoPath('cloudwright-git/site'))).toEqual(['cloudwright-git']);
  });

  it('lists only resources where their repository lives: one naming another project’s repository is not its', async () => {
    const resources = new KubeRepositoryResources(
      listing([
        resource('acme', 'site', 'acme', 'site'),
        resource('cloudwright-git', 'x', 'Tools', 'lint'),
        resource('mallory', 'steal', 'acme', 'site'),
        resource('mallory', 'bad', 'no way', 'site'),
      ]),
      'cloudwright-git',
    );
    expect((await resources.all()).map((r) => `${r.repo} in ${r.resource.metadata?.namespace}`)).toEqual(['acme/site in acme', 'Tools/lint in cloudwright-git']);
  });
});
