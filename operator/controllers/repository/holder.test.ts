import { describe, expect, it } from 'vitest';
import type { Repository } from '../../../src/apis/v1alpha1/repository.ts';
import { foreignOwnerOf, nameHolder } from './holder.ts';

function repo(namespace: string, name: string, created: string, repoId?: string): Repository {
  return {
    metadata: { namespace, name, creationTimestamp: created },
    spec: { owner: 'acme', name: 'app' },
    ...(repoId ? { status: { repoId } } : {}),
  };
}

const holderKey = (...rs: Repository[]) => {
  const h = nameHolder(rs);
  return h && `${h.metadata?.namespace}/${h.metadata?.name}`;
};

describe('nameHolder', () => {
  it('is the only candidate, or nobody', () => {
    expect(holderKey(repo('a', 'x', '2030-01-01T00:00:00Z'))).toBe('a/x');
    expect(nameHolder([])).toBeUndefined();
  });

  it('prefers the oldest, then the smallest namespace/name, whatever the input order', () => {
    const old = repo('b', 'y', '2030-01-01T00:00:00Z');
    const young = repo('a', 'x', '2030-01-01T00:00:05Z');
    expect(holderKey(young, old)).toBe('b/y');
    expect(holderKey(old, young)).toBe('b/y');
    const twin = repo('a', 'z', '2030-01-01T00:00:00Z');
    expect(holderKey(old, twin)).toBe('a/z');
    expect(holderKey(twin, old)).toBe('a/z');
  });

  it('keeps the name with a resource that has claimed an incarnation, even against an older one', () => {
    const older = repo('a', 'x', '2030-01-01T00:00:00Z');
    const claimed = repo('b', 'y', '2030-01-02T00:00:00Z', 'id-1');
    expect(holderKey(older, claimed)).toBe('b/y');
  });
});

describe('foreignOwnerOf', () => {
  const projects: Record<string, string> = { shop: 'shop' };
  const projectOf = (namespace: string) => projects[namespace];
  const at = (namespace: string, owner: string): Repository => ({ metadata: { namespace, name: 'r' }, spec: { owner, name: 'site' } });

  it('names the project whose namespace holds a repository of another owner', () => {
    expect(foreignOwnerOf(at('shop', 'acme'), projectOf)).toBe('shop');
    expect(foreignOwnerOf(at('shop', 'Shop'), projectOf)).toBe('shop');
  });

  it('lets a project’s own owner through, and any owner outside project namespaces', () => {
    expect(foreignOwnerOf(at('shop', 'shop'), projectOf)).toBeUndefined();
    expect(foreignOwnerOf(at('cloudwright-git', 'acme'), projectOf)).toBeUndefined();
  });
});
