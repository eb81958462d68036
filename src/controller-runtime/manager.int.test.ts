import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { KubeConnection } from '../kube/kube-config.ts';
import { objectClient, type ObjectClient } from '../kube/object-client.ts';
import { CONFIG_MAPS, LEASES } from '../kube/resource.ts';
import { testConnection, testNamespace } from '../kube/testing/test-kube.ts';
import type { KubeObject } from '../kube/types.ts';
import { Controller } from './controller.ts';
import { silentLogger } from '../logging/log.ts';
import { Manager } from './manager.ts';

interface ConfigMap extends KubeObject {
  data?: Record<string, string>;
}

let conn: KubeConnection;
let ns: { name: string; remove: () => Promise<void> };
let configMaps: ObjectClient<ConfigMap>;
beforeAll(async () => {
  conn = testConnection();
  ns = await testNamespace(conn, 'manager');
  configMaps = objectClient<ConfigMap>(conn, CONFIG_MAPS);
});
afterAll(async () => ns?.remove());

/** A toy controller: every `role=primary` ConfigMap gets an owned `<name>-copy` with the same data. */
function copyController(manager: Manager) {
  const primaries = manager.informer<ConfigMap>(CONFIG_MAPS, { namespace: ns.name, labelSelector: 'role=primary' });
  const copies = manager.informer<ConfigMap>(CONFIG_MAPS, { namespace: ns.name, labelSelector: 'role=copy' });
  return new Controller<ConfigMap>({
    name: 'copy',
    kind: 'ConfigMap',
    source: primaries,
    owns: [{ kind: 'ConfigMap', source: copies }],
    registry: manager.registry,
    log: manager.log,
    workers: 2,
    reconcile: async (key, { namespace, name }) => {
      const primary = primaries.get(key);
      if (!primary) return; // deleted: the garbage collector removes the copy
      await configMaps.apply(
        {
          metadata: {
            namespace,
            name: `${name}-copy`,
            labels: { role: 'copy' },
            ownerReferences: [{ apiVersion: 'v1', kind: 'ConfigMap', name, uid: primary.metadata?.uid ?? '', controller: true }],
          },
          data: primary.data ?? {},
        },
        { fieldManager: 'copy-controller', force: true },
      );
    },
  });
}

describe('Manager with a real apiserver', () => {
  it('leads, reconciles primaries and repairs drift in owned objects, then releases the lease', async () => {
    const manager = new Manager({
      kube: conn,
      port: 0,
      host: '127.0.0.1',
      log: silentLogger,
      leaderElection: { namespace: ns.name, name: 'copy-operator', leaseDurationMs: 4000, renewDeadlineMs: 3000, retryPeriodMs: 200 },
    });
    manager.add(copyController(manager));
    await configMaps.create({ metadata: { namespace: ns.name, name: 'p', labels: { role: 'primary' } }, data: { v: '1' } });
    await manager.start();

    await vi.waitFor(async () => expect((await configMaps.get(ns.name, 'p-copy'))?.data).toEqual({ v: '1' }), { timeout: 15_000 });
    await configMaps.patch(ns.name, 'p-copy', { data: { v: 'tampered' } });
    await vi.waitFor(async () => expect((await configMaps.get(ns.name, 'p-copy'))?.data).toEqual({ v: '1' }), { timeout: 10_000 });
    await configMaps.patch(ns.name, 'p', { data: { v: '2' } });
    await vi.waitFor(async () => expect((await configMaps.get(ns.name, 'p-copy'))?.data).toEqual({ v: '2' }), { timeout: 10_000 });

    const metrics = await (await fetch(`http://127.0.0.1:${manager.port}/metrics`)).text();
    expect(metrics).toMatch(/controller_runtime_reconcile_total\{controller="copy",result="success"\} [1-9]/);
    expect(metrics).toMatch(/workqueue_adds_total\{name="copy"\} [1-9]/);
    expect((await fetch(`http://127.0.0.1:${manager.port}/readyz`)).status).toBe(200);

    await manager.stop();
    expect(await manager.done).toBe('stopped');
    const lease = await objectClient<KubeObject & { spec?: { holderIdentity?: string } }>(conn, LEASES).get(ns.name, 'copy-operator');
    expect(lease?.spec?.holderIdentity ?? '').toBe('');
  });
});
