import { setImmediate as nextTurn } from 'node:timers/promises';
import { Registry } from 'prom-client';
import { describe, expect, it, vi } from 'vitest';
import { TerminalError } from '../errors.ts';
import type { KubeObject } from '../kube/types.ts';
import { Controller, controllerOwnerKeys, type ControllerOptions, type Reconciler } from './controller.ts';
import { ItemExponentialRateLimiter } from './rate-limiter.ts';
import { MemorySource } from './source.ts';

const obj = (namespace: string, name: string, extra: Partial<KubeObject['metadata']> = {}): KubeObject => ({
  apiVersion: 'cloudwright.dev/v1alpha1',
  kind: 'RuntimeApp',
  metadata: { namespace, name, ...extra },
});

async function metric(registry: Registry, name: string, labels: Record<string, string>): Promise<number | undefined> {
  const values = (await registry.getSingleMetric(name)?.get())?.values ?? [];
  const match = values.find((v) => Object.entries(labels).every(([k, l]) => v.labels[k] === l));
  return match?.value;
}

function setup(reconcile: Reconciler, options: Partial<ControllerOptions> = {}) {
  const registry = new Registry();
  const source = new MemorySource();
  const controller = new Controller({
    name: 'app',
    kind: 'RuntimeApp',
    source,
    reconcile,
    registry,
    // Fast backoff so retries happen within a test: 1 ms doubling up to 20 ms.
    rateLimiter: new ItemExponentialRateLimiter<string>(1, 20),
    ...options,
  });
  return { registry, source, controller };
}

describe('Controller', () => {
  it('turns events into keys and reconciles a key once for a burst of events', async () => {
    const calls: string[] = [];
    const { source, controller } = setup(async (key, ctx) => {
      calls.push(`${key} ${ctx.namespace} ${ctx.name}`);
    });
    source.upsert(obj('ns', 'a'));
    source.upsert(obj('ns', 'a', { labels: { x: '1' } }));
    source.delete(obj('ns', 'a'));
    source.upsert(obj('ns', 'b'));
    await controller.start();
    await vi.waitFor(() => expect(calls).toHaveLength(2));
    await controller.stop();
    expect(calls).toEqual(['ns/a ns a', 'ns/b ns b']);
  });

  it('lets timers and I/O run between keys whose reconciles settle without any (a queue of thousands at start)', async () => {
    let reconciled = 0;
    const { source, controller } = setup(async () => void reconciled++);
    for (let i = 0; i < 2000; i++) source.upsert(obj('ns', `app-${i}`));
    let atTimer: number | undefined;
    await controller.start();
    setTimeout(() => (atTimer = reconciled), 0);
    await vi.waitFor(() => expect(reconciled).toBe(2000), { timeout: 10_000 });
    await controller.stop();
    expect(atTimer).toBeLessThan(2000);
  });

  it('maps owned objects to their controller owner', async () => {
    const seen: string[] = [];
    const configMaps = new MemorySource();
    const { controller } = setup(async (key) => void seen.push(key), { owns: [{ kind: 'ConfigMap', source: configMaps }] });
    await controller.start();
    const ref = { apiVersion: 'cloudwright.dev/v1alpha1', uid: 'u', kind: 'RuntimeApp' };
    configMaps.upsert(obj('ns', 'cm1', { ownerReferences: [{ ...ref, name: 'owner', controller: true }] }));
    configMaps.upsert(obj('ns', 'cm2', { ownerReferences: [{ ...ref, name: 'not-controller' }] }));
    configMaps.upsert(obj('ns', 'cm3', { ownerReferences: [{ ...ref, kind: 'Other', name: 'x', controller: true }] }));
    await vi.waitFor(() => expect(seen).toEqual(['ns/owner']));
    await controller.stop();
  });

  it('uses a custom owner mapping', async () => {
    const seen: string[] = [];
    const secrets = new MemorySource();
    const mapToOwner = (o: KubeObject) => [`${o.metadata?.namespace}/${o.metadata?.labels?.app}`];
    const { controller } = setup(async (key) => void seen.push(key), { owns: [{ kind: 'Secret', source: secrets, mapToOwner }] });
    await controller.start();
    secrets.upsert(obj('ns', 's', { labels: { app: 'web' } }));
    await vi.waitFor(() => expect(seen).toEqual(['ns/web']));
    await controller.stop();
  });

  it('retries a thrown error with growing backoff and forgets after success', async () => {
    let attempts = 0;
    const times: number[] = [];
    const { source, controller, registry } = setup(async () => {
      times.push(performance.now());
      if (++attempts < 5) throw new Error('apiserver hiccup');
    });
    source.upsert(obj('ns', 'a'));
    await controller.start();
    await vi.waitFor(() => expect(attempts).toBe(5));
    await vi.waitFor(async () => expect(await metric(registry, 'controller_runtime_reconcile_total', { result: 'success' })).toBe(1));
    expect(await metric(registry, 'controller_runtime_reconcile_total', { result: 'error' })).toBe(4);
    expect(await metric(registry, 'controller_runtime_reconcile_errors_total', { controller: 'app' })).toBe(4);
    expect(await metric(registry, 'workqueue_retries_total', { name: 'app' })).toBe(4);
    expect(controller.queue.numRequeues('ns/a')).toBe(0);
    const gaps = times.slice(1).map((t, i) => t - (times[i] as number));
    expect(gaps[3]).toBeGreaterThanOrEqual(7); // 1, 2, 4, 8 ms
    await controller.stop();
  });

  it('does not retry a TerminalError and counts it', async () => {
    // Time is the subject (no retry however long the backoff): fake timers let it pass, well past the 20 ms cap.
    vi.useFakeTimers();
    try {
      let attempts = 0;
      const { source, controller, registry } = setup(async () => {
        attempts++;
        throw new TerminalError('spec.domain is not a valid DNS name');
      });
      source.upsert(obj('ns', 'a'));
      await controller.start();
      await vi.advanceTimersByTimeAsync(0);
      expect(await metric(registry, 'controller_runtime_terminal_reconcile_errors_total', {})).toBe(1);
      await vi.advanceTimersByTimeAsync(1_000);
      expect(attempts).toBe(1);
      expect(await metric(registry, 'controller_runtime_reconcile_errors_total', {})).toBe(1);
      expect(await metric(registry, 'controller_runtime_reconcile_total', { result: 'error' })).toBe(1);
      await controller.stop();
    } finally {
      vi.useRealTimers();
    }
  });

  it('requeues after the requested delay and resets the backoff', async () => {
    const times: number[] = [];
    const rateLimiter = new ItemExponentialRateLimiter<string>(1, 20);
    rateLimiter.when('ns/a'); // earlier failures
    rateLimiter.when('ns/a');
    const { source, controller, registry } = setup(
      async () => {
        times.push(performance.now());
        return times.length === 1 ? { requeueAfter: 30 } : undefined;
      },
      { rateLimiter },
    );
    source.upsert(obj('ns', 'a'));
    await controller.start();
    await vi.waitFor(() => expect(times).toHaveLength(2));
    expect((times[1] as number) - (times[0] as number)).toBeGreaterThanOrEqual(25);
    expect(await metric(registry, 'controller_runtime_reconcile_total', { result: 'requeue_after' })).toBe(1);
    expect(controller.queue.numRequeues('ns/a')).toBe(0);
    await controller.stop();
  });

  it('requeue: true goes through the rate limiter without counting an error', async () => {
    let attempts = 0;
    const { source, controller, registry } = setup(async () => (++attempts < 3 ? { requeue: true } : undefined));
    source.upsert(obj('ns', 'a'));
    await controller.start();
    await vi.waitFor(() => expect(attempts).toBe(3));
    expect(await metric(registry, 'controller_runtime_reconcile_total', { result: 'requeue' })).toBe(2);
    expect(await metric(registry, 'controller_runtime_reconcile_errors_total', {})).toBe(0);
    await controller.stop();
  });

  it('never reconciles one key concurrently, even with many workers', async () => {
    const running = new Set<string>();
    let overlap = false;
    let runs = 0;
    const { source, controller, registry } = setup(
      async (key) => {
        if (running.has(key)) overlap = true;
        running.add(key);
        runs++;
        await nextTurn(); // holds the key across a turn of the event loop, where another worker could take it
        running.delete(key);
      },
      { workers: 4 },
    );
    await controller.start();
    expect(await metric(registry, 'controller_runtime_max_concurrent_reconciles', {})).toBe(4);
    for (let i = 0; i < 100; i++) {
      source.upsert(obj('ns', `k${i % 3}`, { resourceVersion: String(i) }));
      if (i % 7 === 0) await nextTurn(); // lets the workers run between bursts of events
    }
    await vi.waitFor(() => expect(controller.queue.len() + controller.queue.processing()).toBe(0));
    await controller.stop();
    expect(overlap).toBe(false);
    expect(runs).toBeGreaterThanOrEqual(3);
    expect(await metric(registry, 'controller_runtime_active_workers', {})).toBe(0);
  });

  it('gives the namespaces of one group their workers per namespace together, and another namespace its own', async () => {
    const running = new Map<string, number>();
    let most = 0;
    const release: Array<() => void> = [];
    const { source, controller } = setup(
      async (key) => {
        const group = key.startsWith('mine-') ? 'mine' : key.slice(0, key.indexOf('/'));
        running.set(group, (running.get(group) ?? 0) + 1);
        if (group === 'mine') most = Math.max(most, running.get(group)!);
        await new Promise<void>((resolve) => release.push(resolve));
        running.set(group, running.get(group)! - 1);
      },
      { workers: 8, workersPerNamespace: 2, namespaceGroup: (namespace) => (namespace.startsWith('mine-') ? 'user:me' : namespace) },
    );
    await controller.start();
    for (let i = 0; i < 6; i++) source.upsert(obj(`mine-${i}`, 'app'));
    source.upsert(obj('other', 'app'));
    // Two of the group's six keys run, and the other namespace's: without the group each of the six would have its own two.
    await vi.waitFor(() => expect(release.length).toBe(3));
    expect([running.get('mine'), running.get('other')]).toEqual([2, 1]);
    while (controller.queue.len() + controller.queue.processing() > 0) {
      release.shift()?.();
      await nextTurn();
    }
    await controller.stop();
    expect(most).toBe(2);
  });

  it('resyncs every cached key periodically', async () => {
    const seen: string[] = [];
    const { source, controller } = setup(async (key) => void seen.push(key), { resyncPeriodMs: 20 });
    source.upsert(obj('ns', 'a'));
    source.upsert(obj('ns', 'b'));
    await controller.start();
    await vi.waitFor(() => expect(seen.filter((k) => k === 'ns/b').length).toBeGreaterThanOrEqual(3));
    await controller.stop();
  });

  it('waits for the other caches its reconciles read before starting workers', async () => {
    const seen: string[] = [];
    const source = new MemorySource();
    const projects = new MemorySource({ synced: false });
    const controller = new Controller({ name: 'c', kind: 'RuntimeApp', source, caches: [projects], registry: new Registry(), reconcile: async (k) => void seen.push(k) });
    source.upsert(obj('ns', 'a'));
    const started = controller.start();
    await nextTurn();
    expect(seen).toEqual([]);
    projects.markSynced();
    await started;
    await vi.waitFor(() => expect(seen).toEqual(['ns/a']));
    await controller.stop();
  });

  it('waits for its sources to sync before starting workers', async () => {
    const seen: string[] = [];
    const registry = new Registry();
    const source = new MemorySource({ synced: false });
    const controller = new Controller({ name: 'c', kind: 'RuntimeApp', source, registry, reconcile: async (k) => void seen.push(k) });
    source.upsert(obj('ns', 'a'));
    let startedEarly = false;
    const started = controller.start().then(() => void (startedEarly = !source.hasSynced()));
    await nextTurn(); // a controller that did not wait would have reconciled by now: nothing else is pending
    expect(seen).toEqual([]);
    source.markSynced();
    await started;
    expect(startedEarly).toBe(false);
    await vi.waitFor(() => expect(seen).toEqual(['ns/a']));
    await controller.stop();
  });

  it('stop lets an in-flight reconcile finish and takes no new work', async () => {
    let release: () => void = () => {};
    const finished: string[] = [];
    const { source, controller } = setup(async (key) => {
      await new Promise<void>((resolve) => (release = resolve));
      finished.push(key);
    });
    source.upsert(obj('ns', 'a'));
    source.upsert(obj('ns', 'b'));
    await controller.start();
    await vi.waitFor(() => expect(controller.queue.processing()).toBe(1));
    let stopped = false;
    const stopping = controller.stop().then(() => void (stopped = true));
    await nextTurn(); // a stop that did not wait for the reconcile would have resolved by now
    expect(stopped).toBe(false);
    release();
    await stopping;
    expect(finished).toEqual(['ns/a']); // 'b' was queued, never started
  });

  it('with ignoreStatusOnlyChanges, its own status writes do not wake it; spec, metadata and deletes do', async () => {
    const reconciled: string[] = [];
    const { source, controller } = setup(async (key) => void reconciled.push(key), { ignoreStatusOnlyChanges: true });
    const at = (generation: number, extra: Partial<KubeObject['metadata']> = {}, status?: unknown) => ({ ...obj('ns', 'a', { uid: 'u1', generation, ...extra }), status });
    await controller.start();
    const settled = async (count: number) => {
      await vi.waitFor(() => expect(reconciled).toHaveLength(count));
      await vi.waitFor(() => expect(controller.queue.len() + controller.queue.processing()).toBe(0));
    };
    source.upsert(at(1));
    await settled(1);
    for (let i = 0; i < 5; i++) source.upsert(at(1, { resourceVersion: String(10 + i) }, { lastWriteAt: i }));
    expect(controller.queue.len() + controller.queue.processing()).toBe(0); // a source tells its handlers at once: nothing was queued
    source.upsert(at(2, {}, { lastWriteAt: 9 })); // the spec changed
    await settled(2);
    source.upsert(at(2, { annotations: { 'cloudwright.dev/restore-request': 'x' } }));
    await settled(3);
    source.upsert(at(2, { annotations: { 'cloudwright.dev/restore-request': 'x' }, deletionTimestamp: '2026-11-30T00:00:00Z' }));
    await settled(4);
    source.delete(at(2, { annotations: { 'cloudwright.dev/restore-request': 'x' }, deletionTimestamp: '2026-11-30T00:00:00Z' }));
    await settled(5);
    await controller.stop();
    expect(reconciled).toEqual(Array(5).fill('ns/a'));
  });

  it('without it, every update wakes the controller (a status written by someone else is news)', async () => {
    const reconciled: string[] = [];
    const { source, controller } = setup(async (key) => void reconciled.push(key));
    await controller.start();
    source.upsert(obj('ns', 'a', { uid: 'u1', generation: 1 }));
    await vi.waitFor(() => expect(reconciled).toHaveLength(1));
    await vi.waitFor(() => expect(controller.queue.len() + controller.queue.processing()).toBe(0));
    source.upsert({ ...obj('ns', 'a', { uid: 'u1', generation: 1 }), status: { seen: true } } as KubeObject);
    expect(controller.queue.len() + controller.queue.processing()).toBe(1); // queued, or handed out at once
    await vi.waitFor(() => expect(reconciled).toHaveLength(2));
    await controller.stop();
  });

  it('acts on a change made after the first list before the rest of that list (a deploy while starting with many apps)', async () => {
    const reconciled: string[] = [];
    const source = new MemorySource({ synced: false });
    const controller = new Controller({ name: 'app', kind: 'RuntimeApp', source, reconcile: async (key) => void reconciled.push(key), registry: new Registry() });
    for (const name of ['a', 'b', 'c']) source.upsert(obj('ns', name));
    source.markSynced();
    source.upsert(obj('ns', 'c', { generation: 2 })); // moves up, ahead of a and b
    source.upsert(obj('ns', 'd'));
    await controller.start();
    await vi.waitFor(() => expect(reconciled).toHaveLength(4));
    await controller.stop();
    expect(reconciled).toEqual(['ns/c', 'ns/d', 'ns/a', 'ns/b']);
  });

  it("queues the keys of an owned object's event that touches many objects behind the changes", async () => {
    const reconciled: string[] = [];
    const source = new MemorySource();
    const owned = new MemorySource();
    const apps = Array.from({ length: 150 }, (_, i) => `ns/app-${i}`);
    const controller = new Controller({
      name: 'app',
      kind: 'RuntimeApp',
      source,
      owns: [{ kind: 'RuntimeReplica', source: owned, mapToOwner: () => apps }],
      reconcile: async (key) => void reconciled.push(key),
      registry: new Registry(),
    });
    owned.upsert(obj('ns', 'replica-a')); // every app: backlog
    source.upsert(obj('ns', 'app-149')); // a change to one of them moves it up
    source.upsert(obj('ns', 'new'));
    await controller.start();
    await vi.waitFor(() => expect(reconciled).toHaveLength(151));
    await controller.stop();
    expect(reconciled.slice(0, 3)).toEqual(['ns/app-149', 'ns/new', 'ns/app-0']);
  });

  it('controllerOwnerKeys handles cluster-scoped owned objects', () => {
    const o: KubeObject = { metadata: { name: 'x', ownerReferences: [{ apiVersion: 'v', kind: 'K', name: 'o', uid: 'u', controller: true }] } };
    expect(controllerOwnerKeys('K', o)).toEqual(['o']);
  });
});
