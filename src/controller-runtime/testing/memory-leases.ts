import { KubeApiError } from '../../kube/api-error.ts';
import type { LeaseClient, LeaseRecord, StoredLease } from '../../kube/lease-client.ts';

/** An in-memory Lease with the apiserver's create/update preconditions. */
export class MemoryLeases implements LeaseClient {
  lease: StoredLease | undefined;
  #rv = 0;
  async get(): Promise<StoredLease | undefined> {
    return this.lease && structuredClone(this.lease);
  }
  async create(_ns: string, _name: string, record: LeaseRecord): Promise<StoredLease> {
    if (this.lease) throw new KubeApiError(409, 'already exists', 'AlreadyExists');
    this.lease = { record: { ...record }, resourceVersion: String(++this.#rv) };
    return structuredClone(this.lease);
  }
  async update(_ns: string, _name: string, record: LeaseRecord, resourceVersion: string): Promise<StoredLease> {
    if (!this.lease) throw new KubeApiError(404, 'not found', 'NotFound');
    if (this.lease.resourceVersion !== resourceVersion) throw new KubeApiError(409, 'modified', 'Conflict');
    this.lease = { record: { ...record }, resourceVersion: String(++this.#rv) };
    return structuredClone(this.lease);
  }
}

/**
 * `leases` as one candidate sees them, counting its reads: every campaign or renewal round starts with one,
 * so a test can wait for a candidate to have tried `n` times instead of sleeping.
 */
export function countingReads(leases: LeaseClient): LeaseClient & { reads: number } {
  const client = {
    reads: 0,
    get: (...args: Parameters<LeaseClient['get']>) => (client.reads++, leases.get(...args)),
    create: (...args: Parameters<LeaseClient['create']>) => leases.create(...args),
    update: (...args: Parameters<LeaseClient['update']>) => leases.update(...args),
  };
  return client;
}
