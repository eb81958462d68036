import type { KubeConnection } from './kube-config.ts';
import { objectClient } from './object-client.ts';
import { LEASES } from './resource.ts';
import type { KubeObject } from './types.ts';
import { formatMicroTime } from './time.ts';

/** The leader-election record kept in a `coordination.k8s.io/v1` Lease. Times are epoch milliseconds. */
export interface LeaseRecord {
  /** `''` when nobody holds the lease (released). */
  holderIdentity: string;
  leaseDurationSeconds: number;
  acquireTime: number | undefined;
  renewTime: number | undefined;
  leaseTransitions: number;
}

/** A lease as read, with the resourceVersion that makes the next update conditional. */
export interface StoredLease {
  record: LeaseRecord;
  resourceVersion: string;
}

/**
 * Reads and writes Leases. `create` fails with 409 AlreadyExists and `update` with 409 Conflict when another
 * writer got there first; both errors are thrown for the caller to treat as "lost this round".
 */
export interface LeaseClient {
  get(namespace: string, name: string): Promise<StoredLease | undefined>;
  create(namespace: string, name: string, record: LeaseRecord): Promise<StoredLease>;
  update(namespace: string, name: string, record: LeaseRecord, resourceVersion: string): Promise<StoredLease>;
}

interface LeaseObject extends KubeObject {
  spec?: {
    holderIdentity?: string;
    leaseDurationSeconds?: number;
    acquireTime?: string;
    renewTime?: string;
    leaseTransitions?: number;
  };
}

export { formatMicroTime } from './time.ts';

const parseTime = (value: string | undefined): number | undefined => (value ? Date.parse(value) : undefined);

function fromObject(obj: LeaseObject): StoredLease {
  const spec = obj.spec ?? {};
  return {
    resourceVersion: obj.metadata?.resourceVersion ?? '',
    record: {
      holderIdentity: spec.holderIdentity ?? '',
      leaseDurationSeconds: spec.leaseDurationSeconds ?? 0,
      acquireTime: parseTime(spec.acquireTime),
      renewTime: parseTime(spec.renewTime),
      leaseTransitions: spec.leaseTransitions ?? 0,
    },
  };
}

function toObject(namespace: string, name: string, record: LeaseRecord, resourceVersion?: string): LeaseObject {
  return {
    metadata: { namespace, name, ...(resourceVersion ? { resourceVersion } : {}) },
    spec: {
      // An empty holder is how client-go releases a lease, so '' is written as is.
      holderIdentity: record.holderIdentity,
      leaseDurationSeconds: record.leaseDurationSeconds,
      ...(record.acquireTime !== undefined ? { acquireTime: formatMicroTime(record.acquireTime) } : {}),
      ...(record.renewTime !== undefined ? { renewTime: formatMicroTime(record.renewTime) } : {}),
      leaseTransitions: record.leaseTransitions,
    },
  };
}

/** A {@link LeaseClient} on the apiserver (`coordination.k8s.io/v1`). */
export function leaseClient(conn: KubeConnection): LeaseClient {
  const leases = objectClient<LeaseObject>(conn, LEASES);
  return {
    async get(namespace, name) {
      const obj = await leases.get(namespace, name);
      return obj && fromObject(obj);
    },
    create: async (namespace, name, record) => fromObject(await leases.create(toObject(namespace, name, record))),
    update: async (namespace, name, record, resourceVersion) => fromObject(await leases.replace(toObject(namespace, name, record, resourceVersion))),
  };
}
