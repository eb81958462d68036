import { randomBytes } from 'node:crypto';
import { objectClient, type KubeConnection, type KubeObject, type ResourceRef } from '../../src/kube/index.ts';

export const NAMESPACES: ResourceRef = { group: '', version: 'v1', plural: 'namespaces', kind: 'Namespace', namespaced: false };

/** A namespace of the test's own, so tests sharing one control plane never see each other's objects. */
export async function createTestNamespace(conn: KubeConnection, prefix = 'test'): Promise<string> {
  const name = `${prefix}-${randomBytes(4).toString('hex')}`;
  await objectClient<KubeObject>(conn, NAMESPACES).create({ metadata: { name } });
  return name;
}
