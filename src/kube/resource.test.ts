import { describe, expect, it } from 'vitest';
import { apiVersionOf, CONFIG_MAPS, customResource, LEASES, NAMESPACES, resourcePath } from './resource.ts';
import { objectKey, splitKey } from './types.ts';

describe('resourcePath', () => {
  it('refuses the names a URL resolves away, which would address the collection or the API above it', () => {
    for (const name of ['.', '..']) expect(() => resourcePath(NAMESPACES, undefined, name)).toThrow(/is not the name of a Namespace/);
  });

  const apps = customResource('RuntimeApp', 'runtimeapps');
  it.each([
    [CONFIG_MAPS, undefined, undefined, undefined, '/api/v1/configmaps'],
    [CONFIG_MAPS, 'p1', undefined, undefined, '/api/v1/namespaces/p1/configmaps'],
    [CONFIG_MAPS, 'p1', 'web', undefined, '/api/v1/namespaces/p1/configmaps/web'],
    [apps, 'p1', 'web', 'status', '/apis/cloudwright.dev/v1alpha1/namespaces/p1/runtimeapps/web/status'],
    [apps, '', undefined, undefined, '/apis/cloudwright.dev/v1alpha1/runtimeapps'],
    [LEASES, 'kube-system', 'op', undefined, '/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/op'],
    [NAMESPACES, 'ignored', 'p1', undefined, '/api/v1/namespaces/p1'],
  ] as const)('%#: %j', (ref, ns, name, sub, path) => {
    expect(resourcePath(ref, ns, name, sub)).toBe(path);
  });

  it('refuses to address a namespaced object without a namespace', () => {
    expect(() => resourcePath(CONFIG_MAPS, '', 'web')).toThrow(/namespace is required/);
  });

  it('escapes path segments', () => {
    expect(resourcePath(CONFIG_MAPS, 'p1', 'a/b')).toBe('/api/v1/namespaces/p1/configmaps/a%2Fb');
  });

  it('writes apiVersion as objects carry it', () => {
    expect([apiVersionOf(CONFIG_MAPS), apiVersionOf(apps)]).toEqual(['v1', 'cloudwright.dev/v1alpha1']);
  });
});

describe('keys', () => {
  it.each([
    ['p1', 'web', 'p1/web'],
    ['', 'p1', 'p1'],
  ])('%s %s → %s and back', (namespace, name, key) => {
    expect(objectKey({ metadata: { ...(namespace ? { namespace } : {}), name } })).toBe(key);
    expect(splitKey(key)).toEqual({ namespace, name });
  });
});
