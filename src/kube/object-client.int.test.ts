import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { isConflict, isNotFound, KubeApiError } from './api-error.ts';
import type { KubeConnection } from './kube-config.ts';
import { objectClient, type ObjectClient } from './object-client.ts';
import { CUSTOM_RESOURCE_DEFINITIONS, type ResourceRef } from './resource.ts';
import { testConnection, testNamespace } from './testing/test-kube.ts';
import type { KubeObject } from './types.ts';

// A throwaway CRD (its own group, so it can never clash with the product's CRDs) with a status subresource.
const CRDS = CUSTOM_RESOURCE_DEFINITIONS;
const WIDGETS: ResourceRef = { group: 'test.cloudwright.dev', version: 'v1', plural: 'widgets', kind: 'Widget', namespaced: true };

interface Widget extends KubeObject {
  spec?: { size?: number; color?: string };
  status?: { phase?: string; observedGeneration?: number };
}

const crd = {
  metadata: { name: 'widgets.test.cloudwright.dev' },
  spec: {
    group: 'test.cloudwright.dev',
    scope: 'Namespaced',
    names: { plural: 'widgets', singular: 'widget', kind: 'Widget', listKind: 'WidgetList' },
    versions: [
      {
        name: 'v1',
        served: true,
        storage: true,
        subresources: { status: {} },
        schema: {
          openAPIV3Schema: {
            type: 'object',
            properties: {
              spec: { type: 'object', properties: { size: { type: 'integer' }, color: { type: 'string' } } },
              status: { type: 'object', properties: { phase: { type: 'string' }, observedGeneration: { type: 'integer' } } },
            },
          },
        },
      },
    ],
  },
};

let conn: KubeConnection;
let ns: { name: string; remove: () => Promise<void> };
let widgets: ObjectClient<Widget>;

beforeAll(async () => {
  conn = testConnection();
  const crds = objectClient<KubeObject & { status?: { conditions?: Array<{ type: string; status: string }> } }>(conn, CRDS);
  try {
    await crds.create(crd);
  } catch (err) {
    if (!(err instanceof KubeApiError && err.reason === 'AlreadyExists')) throw err;
  }
  await vi.waitFor(
    async () => {
      const got = await crds.get('', crd.metadata.name);
      expect(got?.status?.conditions?.find((c) => c.type === 'Established')?.status).toBe('True');
    },
    { timeout: 30_000 },
  );
  ns = await testNamespace(conn, 'objects');
  widgets = objectClient<Widget>(conn, WIDGETS);
  // The CRD is established before discovery and the REST mapping always answer; wait for a list to work.
  await vi.waitFor(() => widgets.list(ns.name), { timeout: 30_000, interval: 200 });
});

afterAll(async () => ns?.remove());

const widget = (name: string, spec: Widget['spec'] = {}): Widget => ({ metadata: { namespace: ns.name, name }, spec });

describe('objectClient', () => {
  it('creates, reads, lists and deletes; a missing object is undefined and deleting it again is fine', async () => {
    const created = await widgets.create(widget('a', { size: 1 }));
    expect(created).toMatchObject({ apiVersion: 'test.cloudwright.dev/v1', kind: 'Widget', spec: { size: 1 } });
    expect(typeof created.metadata?.creationTimestamp).toBe('string');
    expect((await widgets.get(ns.name, 'a'))?.metadata?.uid).toBe(created.metadata?.uid);
    expect((await widgets.list(ns.name)).items.map((w) => w.metadata?.name)).toEqual(['a']);
    expect(await widgets.delete(ns.name, 'a')).toBe(true);
    expect(await widgets.get(ns.name, 'a')).toBeUndefined();
    expect(await widgets.delete(ns.name, 'a')).toBe(false);
    await expect(widgets.patch(ns.name, 'a', { spec: { size: 2 } })).rejects.toSatisfy(isNotFound);
  });

  it('replace with a stale resourceVersion fails with a conflict', async () => {
    const first = await widgets.create(widget('b', { size: 1 }));
    await widgets.replace({ ...first, spec: { size: 2 } });
    const err = await widgets.replace({ ...first, spec: { size: 3 } }).catch((e: unknown) => e);
    expect(isConflict(err)).toBe(true);
    expect((err as KubeApiError).message).toMatch(/modified/);
    expect((await widgets.get(ns.name, 'b'))?.spec?.size).toBe(2);
  });

  it('deletes only the incarnation named by a uid precondition', async () => {
    const first = await widgets.create(widget('d', { size: 1 }));
    await widgets.delete(ns.name, 'd');
    const second = await widgets.create(widget('d', { size: 2 }));
    await expect(widgets.delete(ns.name, 'd', { preconditions: { uid: first.metadata?.uid } })).rejects.toSatisfy(isConflict);
    expect((await widgets.get(ns.name, 'd'))?.metadata?.uid).toBe(second.metadata?.uid);
    expect(await widgets.delete(ns.name, 'd', { preconditions: { uid: second.metadata?.uid } })).toBe(true);
  });

  it('a merge patch carrying resourceVersion is conditional', async () => {
    const first = await widgets.create(widget('c', { size: 1 }));
    await widgets.patch(ns.name, 'c', { spec: { size: 2 } });
    const stale = { metadata: { resourceVersion: first.metadata?.resourceVersion }, spec: { size: 9 } };
    await expect(widgets.patch(ns.name, 'c', stale)).rejects.toSatisfy(isConflict);
    const json = await widgets.patch(ns.name, 'c', [{ op: 'replace', path: '/spec/size', value: 5 }], 'json');
    expect(json.spec?.size).toBe(5);
  });

  it('writes status only through the status subresource', async () => {
    await widgets.create(widget('d', { size: 1 }));
    // The main resource ignores status changes...
    await widgets.patch(ns.name, 'd', { status: { phase: 'Ignored' } });
    expect((await widgets.get(ns.name, 'd'))?.status).toBeUndefined();
    // ...the subresource takes them, and ignores spec changes.
    const patched = await widgets.patchStatus(ns.name, 'd', { status: { phase: 'Ready', observedGeneration: 1 }, spec: { size: 7 } });
    expect(patched).toMatchObject({ status: { phase: 'Ready' }, spec: { size: 1 } });
    const replaced = await widgets.replaceStatus({ ...patched, status: { phase: 'Degraded' } });
    expect(replaced.status?.phase).toBe('Degraded');
  });

  it('server-side applies, with field ownership conflicts between managers', async () => {
    const applied = await widgets.apply(widget('e', { size: 1, color: 'red' }), { fieldManager: 'first' });
    expect(applied.spec).toEqual({ size: 1, color: 'red' });
    // Re-applying the same intent is a no-op.
    const again = await widgets.apply(widget('e', { size: 1, color: 'red' }), { fieldManager: 'first' });
    expect(again.metadata?.resourceVersion).toBe(applied.metadata?.resourceVersion);
    // Another manager changing an owned field conflicts unless it forces.
    await expect(widgets.apply(widget('e', { color: 'blue' }), { fieldManager: 'second' })).rejects.toSatisfy(isConflict);
    const forced = await widgets.apply(widget('e', { color: 'blue' }), { fieldManager: 'second', force: true });
    expect(forced.spec).toEqual({ size: 1, color: 'blue' });
    const status = await widgets.applyStatus({ metadata: { namespace: ns.name, name: 'e' }, status: { phase: 'Ready' } }, { fieldManager: 'first' });
    expect(status.status?.phase).toBe('Ready');
  });
});
