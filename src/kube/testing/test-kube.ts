// Helpers for *.int.test.ts files that run against the real control plane started by the integration
// project's global setup, which provides the kubeconfig path as `inject('kubeconfig')`.
import { randomBytes } from 'node:crypto';
import { inject } from 'vitest';
import { loadKubeConnection, type KubeConnection } from '../kube-config.ts';
import { objectClient } from '../object-client.ts';
import { NAMESPACES } from '../resource.ts';

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

/** Creates a fresh namespace; returns its name and a function deleting it. */
export async function testNamespace(conn: KubeConnection, prefix: string): Promise<{ name: string; remove: () => Promise<void> }> {
  const name = `${prefix}-${randomBytes(4).toString('hex')}`;
  const namespaces = objectClient(conn, NAMESPACES);
  await namespaces.create({ metadata: { name } });
  return { name, remove: async () => void (await namespaces.delete('', name)) };
}
