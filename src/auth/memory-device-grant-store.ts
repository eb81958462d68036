import type { DeviceGrant, DeviceGrantStore, StoredDeviceGrant } from './ports.ts';

/** How long an expired grant is kept, so a late poll still hears `expired_token` rather than `invalid_grant`. */
const RETENTION_AFTER_EXPIRY_MS = 60 * 60 * 1000;

/**
 * A {@link DeviceGrantStore} in memory. Enough for a single API replica; with several replicas the grants
 * must live where every replica sees them, because the device may poll any of them. Expired grants are
 * dropped an hour after expiry, when a new grant is created.
 */
export class MemoryDeviceGrantStore implements DeviceGrantStore {
  readonly #grants = new Map<string, { grant: DeviceGrant; revision: number }>();
  #nextRevision = 1;

  async create(grant: DeviceGrant): Promise<boolean> {
    this.#dropExpired(grant.createdAt);
    if (this.#grants.has(grant.deviceCodeHash)) return false;
    for (const stored of this.#grants.values()) {
      if (stored.grant.userCode === grant.userCode) return false;
    }
    this.#grants.set(grant.deviceCodeHash, { grant: copy(grant), revision: this.#nextRevision++ });
    return true;
  }

  async findByDeviceCodeHash(deviceCodeHash: string): Promise<StoredDeviceGrant | undefined> {
    const stored = this.#grants.get(deviceCodeHash);
    return stored && { grant: copy(stored.grant), revision: String(stored.revision) };
  }

  async findByUserCode(userCode: string): Promise<StoredDeviceGrant | undefined> {
    for (const stored of this.#grants.values()) {
      if (stored.grant.userCode === userCode) return { grant: copy(stored.grant), revision: String(stored.revision) };
    }
    return undefined;
  }

  async update(next: DeviceGrant, expectedRevision: string): Promise<boolean> {
    const stored = this.#grants.get(next.deviceCodeHash);
    if (!stored || String(stored.revision) !== expectedRevision) return false;
    this.#grants.set(next.deviceCodeHash, { grant: copy(next), revision: this.#nextRevision++ });
    return true;
  }

  #dropExpired(now: Date): void {
    for (const [key, { grant }] of this.#grants) {
      if (grant.expiresAt.getTime() + RETENTION_AFTER_EXPIRY_MS <= now.getTime()) this.#grants.delete(key);
    }
  }
}

function copy(grant: DeviceGrant): DeviceGrant {
  return {
    ...grant,
    scopes: [...grant.scopes],
    createdAt: new Date(grant.createdAt),
    expiresAt: new Date(grant.expiresAt),
    lastPolledAt: grant.lastPolledAt && new Date(grant.lastPolledAt),
    state: { ...grant.state },
  };
}
