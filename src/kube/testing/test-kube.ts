// Helpers for *.int.test.ts files that run against the real control plane started by the integration
// project's global setup, which provides the kubeconfig path as `inject('kubeconfig')`.
import { randomBytes } from 'node:crypto';
import { inject } from 'vitest';
import { loadKubeConnection, type KubeConnection } from '../kube-config.ts';
import { objectClient } from '../object-client.ts';
import { allKinds } from '../../apis/v1alpha1/index.ts';
import { KubeApiError } from '../api-error.ts';
import { customResource, NAMESPACES } from '../resource.ts';
import type { KubeObject } from '../types.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    kubeconfig: string;
  }
}

/** A connection to the test control plane. */
export function testConnection(): KubeConnection {
  const path = inject('kubeconfig');
  if (!path) throw new Error('no kubeconfig provided: run through the integration project (e2e/harness/global-setup.ts)');
  return loadKubeConnection(path);
}

/** Creates a fresh namespace; returns its name and a function deleting it ({@link removeTestNamespace}). */
export async function testNamespace(conn: KubeConnection, prefix: string): Promise<{ name: string; remove: () => Promise<void> }> {
  const name = `${prefix}-${randomBytes(4).toString('hex')}`;
  await objectClient(conn, NAMESPACES).create({ metadata: { name } });
  return { name, remove: () => removeTestNamespace(conn, name) };
}

/**
 * Deletes a test's namespace, then releases the finalizers of the Cloudwright objects left in it: the controllers
 * that would release them have stopped with their test. A namespace left terminating is retried by the namespace
 * controller for the rest of the run, each pass listing every kind the apiserver serves: 32 of them had the shared
 * apiserver spend 60–80 % of a core on those lists, most of the run.
 */
export async function removeTestNamespace(conn: KubeConnection, name: string): Promise<void> {
  await objectClient(conn, NAMESPACES).delete('', name);
  for (const kind of allKinds) {
    if (kind.scope !== 'Namespaced') continue;
    const objects = objectClient<KubeObject>(conn, customResource(kind.kind, kind.plural));
    for (const o of (await objects.list(name)).items) {
      if (o.metadata?.finalizers?.length) await objects.patch(name, o.metadata.name ?? '', { metadata: { finalizers: null } }).catch(ignoreGone);
    }
  }
}

/** An object deleted meanwhile (its controller finished after all) needs no release. */
function ignoreGone(err: unknown): void {
  if (!(err instanceof KubeApiError && err.code === 404)) throw err;
}
