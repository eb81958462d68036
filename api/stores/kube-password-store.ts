// People's password hashes in Secrets of the system namespace, one per user: `user-password-<userId>`,
// type `cloudwright.dev/user-password`, key `passwordHash`, owned by the User so the garbage collector
// deletes it with them. An administrator may also write one with kubectl (the hash from
// `node bin/cw-api.ts hash-password`); nothing else reads these Secrets.
import type { PasswordStore } from '../../src/auth/ports.ts';
import { API_VERSION } from '../../src/apis/v1alpha1/group-version.ts';
import { isAlreadyExists, isNotFound, NAMESPACES, objectClient, SECRETS, secretText, type KubeConnection, type KubeObject, type ObjectClient, type SecretObject } from '../../src/kube/index.ts';

export const USER_PASSWORD_SECRET_TYPE = 'cloudwright.dev/user-password';
const KEY = 'passwordHash';

export function passwordSecretName(userId: string): string {
  return `user-password-${userId}`;
}

export class KubePasswordStore implements PasswordStore {
  readonly #namespace: string;
  readonly #secrets: ObjectClient<SecretObject>;
  readonly #namespaces: ObjectClient<KubeObject>;

  constructor(conn: KubeConnection, options: { namespace?: string } = {}) {
    this.#namespace = options.namespace ?? 'cloudwright-system';
    this.#secrets = objectClient<SecretObject>(conn, SECRETS);
    this.#namespaces = objectClient(conn, NAMESPACES);
  }

  /** Read from the apiserver on each sign-in: rare, and a password changed elsewhere must count at once. */
  async getPasswordHash(userId: string): Promise<string | undefined> {
    const secret = await this.#secrets.get(this.#namespace, passwordSecretName(userId));
    return secret?.type === USER_PASSWORD_SECRET_TYPE ? secretText(secret, KEY) : undefined;
  }

  async setPasswordHash(userId: string, hash: string, userUid?: string): Promise<void> {
    const secret: SecretObject = {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: {
        name: passwordSecretName(userId),
        namespace: this.#namespace,
        labels: { 'app.kubernetes.io/managed-by': 'cloudwright', 'cloudwright.dev/user': userId },
        ...(userUid ? { ownerReferences: [{ apiVersion: API_VERSION, kind: 'User', name: userId, uid: userUid }] } : {}),
      },
      type: USER_PASSWORD_SECRET_TYPE,
      data: { [KEY]: Buffer.from(hash, 'utf8').toString('base64') },
    };
    try {
      await this.#create(secret);
    } catch (err) {
      if (!isAlreadyExists(err)) throw err;
      // Last writer wins: setting a password is an administrator's deliberate act.
      const current = await this.#secrets.get(this.#namespace, passwordSecretName(userId));
      await this.#secrets.replace({ ...secret, metadata: { ...secret.metadata, resourceVersion: current?.metadata?.resourceVersion } });
    }
  }

  /** Creates the namespace first when it is missing (a chart creates it; a local run may not have). */
  async #create(secret: SecretObject): Promise<void> {
    try {
      await this.#secrets.create(secret);
    } catch (err) {
      if (!isNotFound(err)) throw err;
      await this.#namespaces.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: this.#namespace } }).catch((e: unknown) => {
        if (!isAlreadyExists(e)) throw e;
      });
      await this.#secrets.create(secret);
    }
  }
}
