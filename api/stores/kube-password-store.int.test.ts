import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { passwordStoreContract } from '../../src/auth/password-store-contract.ts';
import type { User } from '../../src/apis/v1alpha1/user.ts';
import { NAMESPACES, objectClient, SECRETS, type KubeConnection, type SecretObject } from '../../src/kube/index.ts';
import { testConnection } from '../../src/kube/testing/test-kube.ts';
import { USERS } from '../../src/platform/resources.ts';
import { KubePasswordStore, passwordSecretName, USER_PASSWORD_SECRET_TYPE } from './kube-password-store.ts';

let conn: KubeConnection;
const namespaces: string[] = [];

beforeAll(() => {
  conn = testConnection();
});

afterAll(async () => {
  await Promise.all(namespaces.map((name) => objectClient(conn, NAMESPACES).delete('', name)));
});

function freshStore(): { store: KubePasswordStore; namespace: string } {
  const namespace = `passwords-${randomBytes(4).toString('hex')}`;
  namespaces.push(namespace);
  return { store: new KubePasswordStore(conn, { namespace }), namespace };
}

describe('KubePasswordStore', () => {
  passwordStoreContract(async () => ({ store: freshStore().store, userId: async () => `pw-user-${randomBytes(4).toString('hex')}` }));

  it('keeps the hash in a typed Secret owned by the User, and ignores a Secret of another type', async () => {
    const { store, namespace } = freshStore();
    const userId = `pw-owner-${randomBytes(4).toString('hex')}`;
    const user = await objectClient<User>(conn, USERS).create({ metadata: { name: userId }, spec: { displayName: 'Owner', admin: false } });
    await store.setPasswordHash(userId, '$argon2id$v=19$m=19456,t=2,p=1$x$y', user.metadata?.uid);
    const secret = await objectClient<SecretObject>(conn, SECRETS).get(namespace, passwordSecretName(userId));
    expect(secret?.type).toBe(USER_PASSWORD_SECRET_TYPE);
    expect(secret?.metadata?.ownerReferences).toEqual([expect.objectContaining({ kind: 'User', name: userId, uid: user.metadata?.uid })]);

    const other = `pw-other-${randomBytes(4).toString('hex')}`;
    await objectClient<SecretObject>(conn, SECRETS).create({
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: passwordSecretName(other), namespace },
      type: 'Opaque',
      data: { passwordHash: Buffer.from('x').toString('base64') },
    });
    expect(await store.getPasswordHash(other)).toBeUndefined();
    await objectClient<User>(conn, USERS).delete('', userId);
  });
});
