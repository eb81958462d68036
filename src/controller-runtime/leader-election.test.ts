import { afterEach, describe, expect, it, onTestFinished, vi } from 'vitest';
import type { LeaseClient } from '../kube/lease-client.ts';
import { LeaderElector, type LeaderElectionOptions } from './leader-election.ts';
import { countingReads, MemoryLeases } from './testing/memory-leases.ts';

/** A client whose calls can be made to fail, to play a partitioned leader. */
function breakable(inner: LeaseClient) {
  const state = { broken: false };
  const guard =
    <A extends unknown[], R>(fn: (...a: A) => Promise<R>) =>
    (...a: A) =>
      state.broken ? Promise.reject(new Error('connect ECONNREFUSED')) : fn(...a);
  const client: LeaseClient = {
    get: guard(inner.get.bind(inner)),
    create: guard(inner.create.bind(inner)),
    update: guard(inner.update.bind(inner)),
  };
  return { client, state };
}

/** Advances fake time in small steps, letting promises settle between timers, until `done()` or `maxMs`. */
async function advanceUntil(done: () => boolean, maxMs: number): Promise<void> {
  for (let waited = 0; !done() && waited < maxMs; waited += 10) await vi.advanceTimersByTimeAsync(10);
}

const fast = { leaseDurationMs: 400, renewDeadlineMs: 250, retryPeriodMs: 40 };
const electors: LeaderElector[] = [];

function elector(leases: LeaseClient, identity: string, extra: Partial<LeaderElectionOptions> = {}) {
  const events: string[] = [];
  const e = new LeaderElector({
    leases,
    namespace: 'cw-system',
    name: 'operator',
    identity,
    ...fast,
    onStartedLeading: () => events.push('started'),
    onStoppedLeading: () => events.push('stopped'),
    ...extra,
  });
  electors.push(e);
  return { e, events, running: e.run() };
}

afterEach(async () => {
  await Promise.all(electors.splice(0).map((e) => e.stop()));
});

describe('LeaderElector', () => {
  it('rejects timings where a standby could take over before the leader gives up', () => {
    const leases = new MemoryLeases();
    expect(() => new LeaderElector({ leases, namespace: 'n', name: 'l', identity: 'a', leaseDurationMs: 10_000, renewDeadlineMs: 10_000 })).toThrow();
  });

  it('creates a missing lease, renews it, and releases it on stop', async () => {
    const leases = new MemoryLeases();
    const a = elector(leases, 'a');
    await vi.waitFor(() => expect(a.events).toEqual(['started']));
    expect(a.e.isLeader()).toBe(true);
    expect(leases.lease?.record).toMatchObject({ holderIdentity: 'a', leaseDurationSeconds: 1, leaseTransitions: 0 });
    const firstRenew = leases.lease?.record.renewTime ?? 0;
    const acquired = leases.lease?.record.acquireTime;
    await vi.waitFor(() => expect(leases.lease?.record.renewTime).toBeGreaterThan(firstRenew));
    expect(leases.lease?.record.acquireTime).toBe(acquired);
    await a.e.stop();
    await a.running;
    expect(leases.lease?.record.holderIdentity).toBe('');
    expect(a.events).toEqual(['started']); // stop() is not a loss
  });

  it('lets exactly one of two candidates lead, and hands over at once on release', async () => {
    const leases = new MemoryLeases();
    const a = elector(leases, 'a');
    await vi.waitFor(() => expect(a.e.isLeader()).toBe(true));
    const bLeases = countingReads(leases);
    const b = elector(bLeases, 'b');
    await vi.waitFor(() => expect(bLeases.reads).toBeGreaterThanOrEqual(3)); // three rounds lost to a renewing 'a'
    expect(b.events).toEqual([]);
    expect(leases.lease?.record.holderIdentity).toBe('a');

    const released = Date.now();
    await a.e.stop();
    await vi.waitFor(() => expect(b.events).toEqual(['started']));
    expect(Date.now() - released).toBeLessThan(fast.leaseDurationMs); // did not wait out the lease
    expect(leases.lease?.record).toMatchObject({ holderIdentity: 'b', leaseTransitions: 1 });
  });

  it('takes over an abandoned lease after it expires, and the cut-off leader steps down', async () => {
    const leases = new MemoryLeases();
    const partitioned = breakable(leases);
    const a = elector(partitioned.client, 'a');
    await vi.waitFor(() => expect(a.e.isLeader()).toBe(true));
    const b = elector(leases, 'b');
    partitioned.state.broken = true;
    const cut = Date.now();
    await vi.waitFor(() => expect(a.events).toEqual(['started', 'stopped']));
    expect(Date.now() - cut).toBeGreaterThanOrEqual(fast.renewDeadlineMs - fast.retryPeriodMs);
    await vi.waitFor(() => expect(b.events).toEqual(['started']));
    // The standby waited out the lease duration, and only after the old leader had given up.
    expect(Date.now() - cut).toBeGreaterThanOrEqual(fast.leaseDurationMs - fast.retryPeriodMs);
    await a.running;
  });

  it('times a foreign lease on its own clock, ignoring the holder’s timestamps', async () => {
    const leases = new MemoryLeases();
    // Written by a leader whose clock is an hour behind: by its timestamps the lease expired long ago.
    await leases.create('', '', { holderIdentity: 'skewed', leaseDurationSeconds: 1, acquireTime: 0, renewTime: Date.now() - 3_600_000, leaseTransitions: 3 });
    const b = elector(leases, 'b');
    const start = Date.now();
    await vi.waitFor(() => expect(b.events).toEqual(['started']), { timeout: 3000 });
    expect(Date.now() - start).toBeGreaterThanOrEqual(950);
    expect(leases.lease?.record.leaseTransitions).toBe(4);
  });

  it('loses a round to a concurrent writer instead of overwriting it', async () => {
    const leases = new MemoryLeases();
    await leases.create('', '', { holderIdentity: '', leaseDurationSeconds: 1, acquireTime: 0, renewTime: 0, leaseTransitions: 0 });
    let reads = 0;
    const racing: LeaseClient = {
      get: () => (reads++, leases.get()),
      create: (...a) => leases.create(...a),
      // Someone else writes between our read and our write, once.
      update: async (...a) => {
        racing.update = (...b) => leases.update(...b);
        await leases.update('', '', { holderIdentity: 'c', leaseDurationSeconds: 1, acquireTime: 1, renewTime: 1, leaseTransitions: 1 }, leases.lease?.resourceVersion ?? '');
        return leases.update(...a);
      },
    };
    const b = elector(racing, 'b');
    await vi.waitFor(() => expect(reads).toBeGreaterThanOrEqual(3)); // the lost round, and two more after it
    expect(b.events).toEqual([]);
    expect(leases.lease?.record.holderIdentity).toBe('c');
  });

  it("starts a lease's expiry when a slow read arrives, not when it was sent, so a standby never leads beside the leader", async () => {
    // Time is the subject (a read slower than half the lease): fake timers, so the 550 ms are exact, not slept.
    vi.useFakeTimers();
    onTestFinished(() => void vi.useRealTimers());
    const leases = new MemoryLeases();
    const timing = { leaseDurationMs: 1000, renewDeadlineMs: 600, retryPeriodMs: 100 };
    const partitioned = breakable(leases);
    const order: string[] = [];
    const a = elector(partitioned.client, 'a', { ...timing, onStartedLeading: () => order.push('a started'), onStoppedLeading: () => order.push('a stopped') });
    await advanceUntil(() => a.e.isLeader(), 1000);
    expect(a.e.isLeader()).toBe(true);
    // The standby's first read takes 550 ms (throttled and retried) and returns the leader's latest renewal;
    // right then the leader is cut off.
    let slow = true;
    const standby: LeaseClient = {
      get: async () => {
        if (!slow) return leases.get();
        slow = false;
        await new Promise((resolve) => setTimeout(resolve, 550));
        const seen = await leases.get();
        partitioned.state.broken = true;
        return seen;
      },
      create: (...args) => leases.create(...args),
      update: (...args) => leases.update(...args),
    };
    elector(standby, 'b', { ...timing, onStartedLeading: () => order.push('b started') });
    await advanceUntil(() => order.includes('b started'), 3000);
    expect(order).toContain('b started');
    expect(order).toEqual(['a started', 'a stopped', 'b started']);
  });

  it('gives up exactly at the renew deadline, not a retry period after it, when renewals keep failing slowly', async () => {
    // Time is the subject (renewals that each take 110 ms, against a 900 ms deadline): fake timers, exact.
    vi.useFakeTimers();
    onTestFinished(() => void vi.useRealTimers());
    const leases = new MemoryLeases();
    const timing = { leaseDurationMs: 1000, renewDeadlineMs: 900, retryPeriodMs: 300 };
    let failing = false;
    const slowFailing: LeaseClient = {
      get: async () => {
        if (!failing) return leases.get();
        await new Promise((resolve) => setTimeout(resolve, 110));
        throw new Error('connect ETIMEDOUT');
      },
      create: (...args) => leases.create(...args),
      update: (...args) => leases.update(...args),
    };
    let stoppedAt = 0;
    const a = elector(slowFailing, 'a', { ...timing, onStoppedLeading: () => (stoppedAt = Date.now()) });
    await advanceUntil(() => a.e.isLeader(), 1000);
    expect(a.e.isLeader()).toBe(true);
    const lastRenewal = () => leases.lease?.record.renewTime ?? 0;
    const before = lastRenewal();
    await advanceUntil(() => lastRenewal() > before, 1000);
    expect(lastRenewal()).toBeGreaterThan(before);
    failing = true;
    const renewedAt = lastRenewal();
    await advanceUntil(() => stoppedAt > 0, 3000);
    expect(stoppedAt).toBeGreaterThan(0);
    // The renewal time is when that renewal was sent: the leader is gone within its deadline of it.
    // On fake timers nothing runs late: exactly the deadline (the old loop gave up ~1120 ms after).
    expect(stoppedAt - renewedAt).toBe(timing.renewDeadlineMs);
  });

  it('stops within its renew deadline even when the apiserver never answers, campaigning or releasing', async () => {
    const leases = new MemoryLeases();
    const never = () => new Promise<never>(() => {});
    let attempted: () => void = () => {};
    const firstAttempt = new Promise<void>((resolve) => (attempted = resolve));
    const standby = elector({ get: () => (attempted(), never()), create: never, update: never }, 'standby');
    await firstAttempt; // its first attempt is hanging
    let start = Date.now();
    await standby.e.stop();
    expect(Date.now() - start).toBeLessThan(fast.renewDeadlineMs + 200);

    const hanging = breakable(leases);
    const leader = elector(hanging.client, 'leader');
    await vi.waitFor(() => expect(leader.e.isLeader()).toBe(true));
    hanging.client.update = never; // the release hangs
    start = Date.now();
    await leader.e.stop();
    expect(Date.now() - start).toBeLessThan(2 * fast.renewDeadlineMs + 200);
  });
});
