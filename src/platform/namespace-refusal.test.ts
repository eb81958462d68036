import { describe, expect, it } from 'vitest';
import { KubeApiError } from '../kube/index.ts';
import { namespaceRefusal } from './namespace-refusal.ts';

describe('namespaceRefusal', () => {
  it("answers 409 for a namespace not made yet and for one being deleted (the apiserver's 403), nothing else", () => {
    expect(namespaceRefusal(new KubeApiError(404, 'namespaces "p" not found', 'NotFound'), 'p')?.status).toBe(409);
    // What the apiserver answers a create racing the project's deletion (it was a 500 before).
    const terminating = new KubeApiError(403, 'runtimeapps.cloudwright.dev "web" is forbidden: unable to create new content in namespace p because it is being terminated', 'Forbidden');
    expect([namespaceRefusal(terminating, 'p')?.status, namespaceRefusal(terminating, 'p')?.message]).toEqual([409, 'Project p is being deleted; nothing can be created in it.']);
    expect(namespaceRefusal(new KubeApiError(403, 'forbidden: RBAC', 'Forbidden'), 'p')).toBeUndefined();
    expect(namespaceRefusal(new Error('boom'), 'p')).toBeUndefined();
  });
});
