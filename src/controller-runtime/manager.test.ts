import { setImmediate as nextTurn } from 'node:timers/promises';
import { Registry } from 'prom-client';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { Controller } from './controller.ts';
import { silentLogger } from '../logging/log.ts';
import { Manager, runManager, type ManagerOptions } from './manager.ts';
import { MemorySource } from './source.ts';
import { countingReads, MemoryLeases } from './testing/memory-leases.ts';

const managers: Manager[] = [];
afterEach(async () => void (await Promise.all(managers.splice(0).map((m) => m.stop()))));

function manager(options: Partial<ManagerOptions> = {}) {
  const registry = new Registry();
  const source = new MemorySource();
  source.upsert({ metadata: { namespace: 'ns', name: 'a' } });
  const reconciled: string[] = [];
  let gate: Promise<void> = Promise.resolve();
  let enter: () => void = () => {};
  /** Resolves once the first reconcile has begun. */
  const entered = new Promise<void>((resolve) => (enter = resolve));
  const controller = new Controller({
    name: 'app',
    kind: 'RuntimeApp',
    source,
    registry,
    reconcile: async (key) => {
      enter();
      await gate;
      reconciled.push(key);
    },
  });
  const m = new Manager({ registry, port: 0, host: '127.0.0.1', leaderElection: false, log: silentLogger, ...options });
  m.add(controller);
  managers.push(m);
  return { m, source, reconciled, entered, hold: (p: Promise<void>) => void (gate = p) };
}

const get = async (m: Manager, path: string) => {
  const res = await fetch(`http://127.0.0.1:${m.port}${path}`);
  return { status: res.status, body: await res.text() };
};

describe('Manager', () => {
  it('serves metrics and probes, and runs controllers without leader election', async () => {
    const { m, reconciled } = manager();
    await m.start();
    await vi.waitFor(() => expect(reconciled).toEqual(['ns/a']));
    const metrics = await get(m, '/metrics');
    expect(metrics.status).toBe(200);
    expect(metrics.body).toContain('controller_runtime_reconcile_total{controller="app",result="success"} 1');
    expect(metrics.body).toContain('controller_runtime_max_concurrent_reconciles{controller="app"} 1');
    expect(metrics.body).toContain('workqueue_adds_total{name="app"} 1');
    expect(await get(m, '/healthz')).toEqual({ status: 200, body: 'ok' });
    expect((await get(m, '/readyz')).status).toBe(200);
    expect((await get(m, '/nope')).status).toBe(404);
  });

  it('starts controllers only on the leader, and hands over on stop', async () => {
    const leases = new MemoryLeases();
    const election = { namespace: 'cw-system', name: 'op', leaseDurationMs: 3000, renewDeadlineMs: 2000, retryPeriodMs: 30 };
    const one = manager({ leases, leaderElection: { ...election, identity: 'one' } });
    await one.m.start();
    await vi.waitFor(() => expect(one.reconciled).toEqual(['ns/a']));
    const twoLeases = countingReads(leases);
    const two = manager({ leases: twoLeases, leaderElection: { ...election, identity: 'two' } });
    await two.m.start();
    await vi.waitFor(() => expect(twoLeases.reads).toBeGreaterThanOrEqual(3)); // three rounds lost to 'one'
    expect(two.reconciled).toEqual([]);
    expect((await get(two.m, '/readyz')).status).toBe(200); // a standby is ready
    await one.m.stop();
    expect(await one.m.done).toBe('stopped');
    await vi.waitFor(() => expect(two.reconciled).toEqual(['ns/a']), { timeout: 1000 }); // well before the 3 s lease
    expect(leases.lease?.record.holderIdentity).toBe('two');
  });

  it('lets an in-flight reconcile finish on stop', async () => {
    const { m, reconciled, entered, hold } = manager();
    let release = () => {};
    hold(new Promise<void>((resolve) => (release = resolve)));
    await m.start();
    await entered;
    let stopped = false;
    const stopping = m.stop().then(() => void (stopped = true));
    await nextTurn(); // a stop that did not wait for the reconcile would have resolved by now
    expect(stopped).toBe(false);
    expect((await fetch(`http://127.0.0.1:${m.port}/readyz`).catch(() => ({ status: 0 }))).status).not.toBe(200);
    expect(stopped).toBe(false); // nor while the probe was answered
    release();
    await stopping;
    expect(reconciled).toEqual(['ns/a']);
  });

  it('bounds the wait for in-flight reconciles', async () => {
    // A real 50 ms timeout: that it fires is the subject, and the manager also closes a real HTTP server.
    const { m, entered, hold } = manager({ shutdownTimeoutMs: 50 });
    hold(new Promise<void>(() => {}));
    await m.start();
    await entered;
    const start = Date.now();
    await m.stop();
    expect(Date.now() - start).toBeLessThan(1000);
  });

  it('leaves the lease to expire, not released, when it stops with reconciles abandoned', async () => {
    const leases = new MemoryLeases();
    const election = { namespace: 'cw-system', name: 'op', identity: 'one', leaseDurationMs: 3000, renewDeadlineMs: 2000, retryPeriodMs: 30 };
    const { m, entered, hold } = manager({ leases, leaderElection: election, shutdownTimeoutMs: 50 });
    hold(new Promise<void>(() => {}));
    await m.start();
    await vi.waitFor(() => expect(leases.lease?.record.holderIdentity).toBe('one'));
    await entered; // the reconcile is under way
    await m.stop();
    expect(leases.lease?.record.holderIdentity).toBe('one');
  });

  it('runManager exits 0 after a graceful SIGTERM', async () => {
    const { m } = manager();
    const codes: number[] = [];
    const running = runManager(m, (code) => void codes.push(code));
    await vi.waitFor(() => expect(m.port).toBeDefined());
    process.emit('SIGTERM', 'SIGTERM');
    await running;
    expect(codes).toEqual([0]);
  });
});
