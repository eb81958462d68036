import { randomBytes } from 'node:crypto';
import { NAMESPACES, objectClient, type KubeConnection, type KubeObject } from '../../src/kube/index.ts';

export { NAMESPACES };

/** A namespace of the test's own, so tests sharing one control plane never see each other's objects. */
export async function createTestNamespace(conn: KubeConnection, prefix = 'test'): Promise<string> {
  const name = `${prefix}-${randomBytes(4).toString('hex')}`;
  await objectClient<KubeObject>(conn, NAMESPACES).create({ metadata: { name } });
  return name;
}
