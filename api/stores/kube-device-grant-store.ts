import type { DeviceGrant, DeviceGrantStore, StoredDeviceGrant } from '../../src/auth/ports.ts';
import { isAlreadyExists, isConflict, isNotFound, NAMESPACES, objectClient, SECRETS, type KubeConnection, type KubeObject, type ObjectClient, type SecretObject } from '../../src/kube/index.ts';
import { DEVICE_GRANT_SECRET_TYPE, fromGrantSecret, grantSecretName, isStorableUserCode, toGrantSecret, USER_CODE_LABEL } from './device-grant-secret.ts';

export interface KubeDeviceGrantStoreOptions {
  /** Where grant Secrets live; created on first use if missing. Default `cloudwright-system`. */
  readonly namespace?: string;
  /**
   * How long a grant is kept after it expired (default 1 h, as the in-memory store), so a late poll still
   * hears `expired_token`. Grants older than that read as absent and are deleted.
   */
  readonly retentionMs?: number;
  /** Garbage collection runs on `create`, at most this often (default 5 min). */
  readonly gcIntervalMs?: number;
  readonly now?: () => Date;
  /** Failures of background garbage collection; log them. */
  readonly onError?: (err: unknown) => void;
}

/**
 * The production {@link DeviceGrantStore}: one Secret of type `cloudwright.dev/device-grant` per grant,
 * named after the device code hash (so the apiserver enforces its uniqueness) and labelled with the user
 * code. Compare-and-swap is a PUT carrying the expected `resourceVersion`.
 *
 * Reads go to the apiserver rather than an informer: grants are few and short-lived, a poll every few
 * seconds is cheap, and CAS wants the current revision, which a cache could only approximate. Every API
 * replica sees every grant, so a device may poll any of them.
 */
export class KubeDeviceGrantStore implements DeviceGrantStore {
  /** The namespace holding the grant Secrets. */
  readonly namespace: string;
  readonly #secrets: ObjectClient<SecretObject>;
  readonly #namespaces: ObjectClient<KubeObject>;
  readonly #retentionMs: number;
  readonly #gcIntervalMs: number;
  readonly #now: () => Date;
  readonly #onError: (err: unknown) => void;
  #lastGcAt = Number.NEGATIVE_INFINITY;

  constructor(conn: KubeConnection, options: KubeDeviceGrantStoreOptions = {}) {
    this.namespace = options.namespace ?? 'cloudwright-system';
    this.#secrets = objectClient<SecretObject>(conn, SECRETS);
    this.#namespaces = objectClient(conn, NAMESPACES);
    this.#retentionMs = options.retentionMs ?? 60 * 60 * 1000;
    this.#gcIntervalMs = options.gcIntervalMs ?? 5 * 60 * 1000;
    this.#now = options.now ?? (() => new Date());
    this.#onError = options.onError ?? (() => {});
  }

  async create(grant: DeviceGrant): Promise<boolean> {
    this.#collectGarbageNowAndThen();
    const secret = toGrantSecret(this.namespace, grant);
    if (!(await this.#createSecret(secret))) return false;
    // Labels are not unique, so a user code is claimed by creating first and looking second: whoever finds
    // another live holder backs out. Two racing creators may both back out (each then retries with a new
    // code), but two grants never both keep one code.
    const holders = await this.#liveWithUserCode(grant.userCode);
    if (holders.every((holder) => holder.metadata?.name === secret.metadata?.name)) return true;
    await this.#secrets.delete(this.namespace, secret.metadata?.name ?? '');
    return false;
  }

  async findByDeviceCodeHash(deviceCodeHash: string): Promise<StoredDeviceGrant | undefined> {
    const name = grantSecretName(deviceCodeHash);
    const secret = name === undefined ? undefined : await this.#secrets.get(this.namespace, name);
    return secret && this.#stored(secret);
  }

  async findByUserCode(userCode: string): Promise<StoredDeviceGrant | undefined> {
    if (!isStorableUserCode(userCode)) return undefined;
    const holders = await this.#liveWithUserCode(userCode);
    // Two holders exist only while a racing create backs out; answer neither rather than the wrong one.
    return holders.length === 1 && holders[0] ? this.#stored(holders[0]) : undefined;
  }

  async update(next: DeviceGrant, expectedRevision: string): Promise<boolean> {
    // Without a resourceVersion a PUT is unconditional: never let an empty revision through.
    if (expectedRevision === '' || grantSecretName(next.deviceCodeHash) === undefined) return false;
    try {
      await this.#secrets.replace(toGrantSecret(this.namespace, next, expectedRevision));
      return true;
    } catch (err) {
      if (isConflict(err) || isNotFound(err)) return false;
      throw err;
    }
  }

  /** Deletes grants past expiry plus retention and answers how many; `create` calls it now and then. */
  async collectGarbage(): Promise<number> {
    const { items } = await this.#secrets.list(this.namespace, { fieldSelector: `type=${DEVICE_GRANT_SECRET_TYPE}` });
    let deleted = 0;
    for (const secret of items) {
      const grant = fromGrantSecret(secret);
      // Unreadable Secrets are left alone: we cannot tell when they expire, and someone may be looking at them.
      if (grant && this.#isDropped(grant) && (await this.#secrets.delete(this.namespace, secret.metadata?.name ?? ''))) {
        deleted += 1;
      }
    }
    return deleted;
  }

  #collectGarbageNowAndThen(): void {
    const now = this.#now().getTime();
    if (now - this.#lastGcAt < this.#gcIntervalMs) return;
    this.#lastGcAt = now;
    this.collectGarbage().catch(this.#onError);
  }

  async #createSecret(secret: SecretObject): Promise<boolean> {
    try {
      await this.#secrets.create(secret);
      return true;
    } catch (err) {
      if (isAlreadyExists(err)) return false;
      // A create answers 404 only when the namespace is missing: make it once, then try again.
      if (!isNotFound(err)) throw err;
    }
    await this.#ensureNamespace();
    try {
      await this.#secrets.create(secret);
      return true;
    } catch (err) {
      if (isAlreadyExists(err)) return false;
      throw err;
    }
  }

  async #ensureNamespace(): Promise<void> {
    try {
      await this.#namespaces.create({ metadata: { name: this.namespace } });
    } catch (err) {
      if (!isAlreadyExists(err)) throw err;
    }
  }

  async #liveWithUserCode(userCode: string): Promise<SecretObject[]> {
    const { items } = await this.#secrets.list(this.namespace, {
      labelSelector: `${USER_CODE_LABEL}=${userCode}`,
      fieldSelector: `type=${DEVICE_GRANT_SECRET_TYPE}`,
    });
    return items.filter((secret) => {
      const grant = fromGrantSecret(secret);
      return grant !== undefined && !this.#isDropped(grant);
    });
  }

  #stored(secret: SecretObject): StoredDeviceGrant | undefined {
    const grant = fromGrantSecret(secret);
    const revision = secret.metadata?.resourceVersion;
    return grant && revision && !this.#isDropped(grant) ? { grant, revision } : undefined;
  }

  /** Past expiry plus retention: the store behaves as if it had already deleted the grant. */
  #isDropped(grant: DeviceGrant): boolean {
    return grant.expiresAt.getTime() + this.#retentionMs <= this.#now().getTime();
  }
}
