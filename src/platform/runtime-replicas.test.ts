import { describe, expect, it } from 'vitest';
import type { RuntimeReplica } from '../apis/v1alpha1/runtime-replica.ts';
import { isLive, leaseExpiry, type ReplicaLease } from './runtime-replicas.ts';

const t0 = Date.parse('2026-01-01T00:00:00Z');
const lease = (spec: ReplicaLease['spec']): ReplicaLease => ({ metadata: { namespace: 'cw', name: 'r1' }, spec });
const replica: RuntimeReplica = { metadata: { namespace: 'cw', name: 'r1' }, spec: { ready: true } };

describe('replica liveness', () => {
  it('expires the lease duration after the last renewal', () => {
    expect(leaseExpiry(lease({ holderIdentity: 'r1', leaseDurationSeconds: 40, renewTime: '2026-01-01T00:00:00.000000Z' }), 'r1')).toBe(t0 + 40_000);
  });

  it('counts a replica until its lease expires, and not after', () => {
    const l = lease({ holderIdentity: 'r1', leaseDurationSeconds: 3, renewTime: '2026-01-01T00:00:00.000000Z' });
    expect(isLive(replica, l, t0 + 2_999)).toBe(true);
    expect(isLive(replica, l, t0 + 3_000)).toBe(false);
  });

  it('does not count a replica without a lease, or whose lease another holds or was never renewed', () => {
    expect(isLive(replica, undefined, t0)).toBe(false);
    expect(isLive(replica, lease({ holderIdentity: 'other', leaseDurationSeconds: 40, renewTime: '2026-01-01T00:00:00Z' }), t0)).toBe(false);
    expect(isLive(replica, lease({ holderIdentity: 'r1', leaseDurationSeconds: 40 }), t0)).toBe(false);
  });
});
