import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { KubeConnection } from '../kube/kube-config.ts';
import { leaseClient } from '../kube/lease-client.ts';
import { objectClient } from '../kube/object-client.ts';
import { LEASES } from '../kube/resource.ts';
import { testConnection, testNamespace } from '../kube/testing/test-kube.ts';
import type { KubeObject } from '../kube/types.ts';
import { LeaderElector } from './leader-election.ts';
import { countingReads } from './testing/memory-leases.ts';

let conn: KubeConnection;
let ns: { name: string; remove: () => Promise<void> };
beforeAll(async () => {
  conn = testConnection();
  ns = await testNamespace(conn, 'leader');
});
afterAll(async () => ns?.remove());

const timings = { leaseDurationMs: 4000, renewDeadlineMs: 3000, retryPeriodMs: 200 };

function candidate(identity: string, lease: string) {
  const events: string[] = [];
  const leases = countingReads(leaseClient(conn));
  const elector = new LeaderElector({
    leases,
    namespace: ns.name,
    name: lease,
    identity,
    ...timings,
    onStartedLeading: () => events.push('started'),
    onStoppedLeading: () => events.push('stopped'),
  });
  return { elector, events, leases, running: elector.run() };
}

interface LeaseObject extends KubeObject {
  spec?: { holderIdentity?: string; leaseTransitions?: number; renewTime?: string; acquireTime?: string; leaseDurationSeconds?: number };
}

describe('leader election on a real Lease', () => {
  it('elects one of two candidates and hands over at once when the leader releases', async () => {
    const a = candidate('a', 'handover');
    const b = candidate('b', 'handover');
    await vi.waitFor(() => expect([...a.events, ...b.events]).toEqual(['started']));
    const [leader, standby] = a.events.length ? [a, b] : [b, a];
    const leases = objectClient<LeaseObject>(conn, LEASES);
    const held = await leases.get(ns.name, 'handover');
    expect(held?.spec).toMatchObject({ holderIdentity: leader === a ? 'a' : 'b', leaseDurationSeconds: 4, leaseTransitions: 0 });
    expect(held?.spec?.renewTime).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/); // MicroTime round-trips

    // The standby keeps waiting while the leader renews: three more rounds lost.
    const standbyReads = standby.leases.reads;
    await vi.waitFor(() => expect(standby.leases.reads).toBeGreaterThanOrEqual(standbyReads + 3), { timeout: 5_000 });
    expect(standby.events).toEqual([]);
    const renewed = await leases.get(ns.name, 'handover');
    expect(renewed?.spec?.renewTime).not.toBe(held?.spec?.renewTime);

    const released = Date.now();
    await leader.elector.stop();
    await leader.running;
    await vi.waitFor(() => expect(standby.events).toEqual(['started']), { timeout: 3000 });
    expect(Date.now() - released).toBeLessThan(timings.leaseDurationMs); // no waiting out the lease
    const taken = await leases.get(ns.name, 'handover');
    expect(taken?.spec).toMatchObject({ holderIdentity: leader === a ? 'b' : 'a', leaseTransitions: 1 });
    await standby.elector.stop();
    expect((await leases.get(ns.name, 'handover'))?.spec?.holderIdentity ?? '').toBe('');
  });

  it('lets exactly one of several simultaneous candidates win an empty lease', async () => {
    const candidates = ['x', 'y', 'z'].map((id) => candidate(id, 'race'));
    await vi.waitFor(() => expect(candidates.flatMap((c) => c.events)).toEqual(['started']));
    // The others keep losing: each makes two more rounds against the winner's lease.
    const losers = candidates.filter((c) => c.events.length === 0);
    const reads = losers.map((c) => c.leases.reads);
    await vi.waitFor(() => losers.forEach((c, i) => expect(c.leases.reads).toBeGreaterThanOrEqual((reads[i] as number) + 2)), { timeout: 5_000 });
    expect(candidates.flatMap((c) => c.events)).toEqual(['started']);
    expect(candidates.filter((c) => c.elector.isLeader())).toHaveLength(1);
    await Promise.all(candidates.map((c) => c.elector.stop()));
  });
});
