import { describe, expect, it } from 'vitest';
import type { RuntimeReplica } from '../../../src/apis/v1alpha1/runtime-replica.ts';
import type { ReplicaLease } from '../../../src/platform/runtime-replicas.ts';
import { replicaPlan } from './expiry.ts';

const t0 = Date.parse('2026-01-01T00:00:00Z');
const replica: RuntimeReplica = { metadata: { namespace: 'cw', name: 'r1', creationTimestamp: '2026-01-01T00:00:00Z' }, spec: { ready: true } };
const lease: ReplicaLease = { metadata: { namespace: 'cw', name: 'r1' }, spec: { holderIdentity: 'r1', leaseDurationSeconds: 3, renewTime: '2026-01-01T00:00:00.000000Z' } };

describe('replicaPlan', () => {
  it('waits until the lease expires (a requeue at the expiry, not a poll)', () => {
    expect(replicaPlan('r1', replica, lease, t0 + 1_000)).toEqual({ action: 'wait', at: t0 + 3_000 });
  });

  it('removes the objects of an expired replica, or an expired lease left alone', () => {
    expect(replicaPlan('r1', replica, lease, t0 + 3_000)).toEqual({ action: 'remove' });
    expect(replicaPlan('r1', undefined, lease, t0 + 3_000)).toEqual({ action: 'remove' });
  });

  it('gives a report without a lease a lease duration from its creation', () => {
    expect(replicaPlan('r1', replica, undefined, t0 + 1_000)).toEqual({ action: 'wait', at: t0 + 40_000 });
    expect(replicaPlan('r1', replica, undefined, t0 + 40_000)).toEqual({ action: 'remove' });
  });

  it('gives reports left without their replica and lease a lease duration from the first one’s creation', () => {
    const report = (creationTimestamp: string) => ({ metadata: { namespace: 'cw', name: 'r1.p', creationTimestamp } });
    const reports = [report('2026-01-01T00:00:10Z'), report('2026-01-01T00:00:00Z')];
    expect(replicaPlan('r1', undefined, undefined, t0 + 1_000, reports)).toEqual({ action: 'wait', at: t0 + 40_000 });
    expect(replicaPlan('r1', undefined, undefined, t0 + 40_000, reports)).toEqual({ action: 'remove' });
    // With a live lease, they wait for it as the replica does.
    expect(replicaPlan('r1', undefined, lease, t0 + 1_000, reports)).toEqual({ action: 'wait', at: t0 + 3_000 });
  });

  it('has nothing to do once all are gone', () => {
    expect(replicaPlan('r1', undefined, undefined, t0)).toEqual({ action: 'none' });
  });
});
