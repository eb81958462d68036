import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isConflict } from '../kube/api-error.ts';
import type { KubeConnection } from '../kube/kube-config.ts';
import { objectClient, type ObjectClient } from '../kube/object-client.ts';
import { CONFIG_MAPS } from '../kube/resource.ts';
import { testConnection, testNamespace } from '../kube/testing/test-kube.ts';
import type { KubeObject } from '../kube/types.ts';
import { addFinalizer, hasFinalizer, removeFinalizer, runFinalizer } from './finalizers.ts';

const F = 'cloudwright.dev/test-cleanup';
let conn: KubeConnection;
let ns: { name: string; remove: () => Promise<void> };
let configMaps: ObjectClient<KubeObject>;

beforeAll(async () => {
  conn = testConnection();
  ns = await testNamespace(conn, 'finalizers');
  configMaps = objectClient(conn, CONFIG_MAPS);
});
afterAll(async () => ns?.remove());

describe('finalizers against the apiserver', () => {
  it('adds and removes with optimistic concurrency; a stale copy gets a conflict', async () => {
    const created = await configMaps.create({ metadata: { namespace: ns.name, name: 'a', finalizers: ['someone.else/keep'] } });
    const withOurs = await addFinalizer(configMaps, created, F);
    expect(withOurs.metadata?.finalizers).toEqual(['someone.else/keep', F]);

    // `created` is stale now: writing from it must not silently drop the finalizer just added.
    const err = await removeFinalizer(configMaps, { ...created, metadata: { ...created.metadata, finalizers: [F, 'someone.else/keep'] } }, F).catch((e: unknown) => e);
    expect(isConflict(err)).toBe(true);
    expect((await configMaps.get(ns.name, 'a'))?.metadata?.finalizers).toEqual(['someone.else/keep', F]);

    const without = await removeFinalizer(configMaps, withOurs, F);
    expect(without.metadata?.finalizers).toEqual(['someone.else/keep']);
    await configMaps.patch(ns.name, 'a', { metadata: { finalizers: null } });
    await configMaps.delete(ns.name, 'a');
  });

  it('keeps a deleted object until cleanup succeeds, then lets it go', async () => {
    const created = await configMaps.create({ metadata: { namespace: ns.name, name: 'b' } });
    await addFinalizer(configMaps, created, F);
    await configMaps.delete(ns.name, 'b');
    const deleting = await configMaps.get(ns.name, 'b');
    expect(deleting?.metadata?.deletionTimestamp).toBeDefined();

    await expect(runFinalizer(configMaps, deleting!, F, async () => Promise.reject(new Error('dns provider down')))).rejects.toThrow('dns provider down');
    const still = await configMaps.get(ns.name, 'b');
    expect(still && hasFinalizer(still, F)).toBe(true);

    const cleaned: string[] = [];
    expect(await runFinalizer(configMaps, still!, F, async (o) => void cleaned.push(o.metadata?.name ?? ''))).toBe(true);
    expect(cleaned).toEqual(['b']);
    expect(await configMaps.get(ns.name, 'b')).toBeUndefined();
  });

  it('does not add a finalizer to an object being deleted', async () => {
    const created = await configMaps.create({ metadata: { namespace: ns.name, name: 'c', finalizers: ['someone.else/keep'] } });
    await configMaps.delete(ns.name, 'c');
    const deleting = await configMaps.get(ns.name, 'c');
    expect(await addFinalizer(configMaps, deleting!, F)).toBe(deleting);
    await configMaps.patch(ns.name, 'c', { metadata: { finalizers: null, resourceVersion: deleting?.metadata?.resourceVersion } });
    expect(created.metadata?.name).toBe('c');
  });
});
