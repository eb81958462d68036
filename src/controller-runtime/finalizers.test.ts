import { describe, expect, it } from 'vitest';
import { KubeApiError } from '../kube/api-error.ts';
import type { KubeObject } from '../kube/types.ts';
import { addFinalizer, removeFinalizer, runFinalizer, type FinalizerClient } from './finalizers.ts';

const F = 'cloudwright.dev/dns';

/** An in-memory stand-in for the apiserver's merge patch with a resourceVersion precondition. */
function store(initial: KubeObject) {
  let current = structuredClone(initial);
  const patches: unknown[] = [];
  const client: FinalizerClient<KubeObject> = {
    async patch(_ns, _name, patch) {
      patches.push(patch);
      const meta = (patch as { metadata: { resourceVersion: string; finalizers: string[] } }).metadata;
      if (meta.resourceVersion !== current.metadata?.resourceVersion) {
        throw new KubeApiError(409, 'the object has been modified', 'Conflict');
      }
      const rv = String(Number(current.metadata?.resourceVersion) + 1);
      current = { ...current, metadata: { ...current.metadata, finalizers: meta.finalizers, resourceVersion: rv } };
      return structuredClone(current);
    },
  };
  return { client, patches, current: () => structuredClone(current), bump: () => void (current.metadata!.resourceVersion = '99') };
}

const app = (meta: KubeObject['metadata'] = {}): KubeObject => ({ metadata: { namespace: 'ns', name: 'a', resourceVersion: '1', ...meta } });

describe('finalizers', () => {
  it('adds a finalizer with the read resourceVersion, once', async () => {
    const s = store(app({ finalizers: ['other'] }));
    const updated = await addFinalizer(s.client, s.current(), F);
    expect(updated.metadata?.finalizers).toEqual(['other', F]);
    expect(s.patches).toEqual([{ metadata: { finalizers: ['other', F], resourceVersion: '1' } }]);
    expect(await addFinalizer(s.client, updated, F)).toBe(updated);
    expect(s.patches).toHaveLength(1);
  });

  it('throws the conflict when the object changed since it was read', async () => {
    const s = store(app());
    const stale = s.current();
    s.bump();
    await expect(addFinalizer(s.client, stale, F)).rejects.toMatchObject({ code: 409 });
  });

  it('does not add a finalizer to an object being deleted', async () => {
    const s = store(app({ deletionTimestamp: '2025-01-01T00:00:00Z' }));
    await addFinalizer(s.client, s.current(), F);
    expect(s.patches).toEqual([]);
  });

  it('refuses to write without a resourceVersion', async () => {
    const s = store(app());
    await expect(removeFinalizer(s.client, { metadata: { name: 'a', finalizers: [F] } }, F)).rejects.toThrow(/read from the apiserver/);
  });

  describe('runFinalizer', () => {
    it('returns false and does nothing for a live object', async () => {
      const s = store(app({ finalizers: [F] }));
      let cleaned = false;
      expect(await runFinalizer(s.client, s.current(), F, async () => void (cleaned = true))).toBe(false);
      expect(cleaned).toBe(false);
    });

    it('cleans up, then removes only our finalizer', async () => {
      const s = store(app({ deletionTimestamp: '2025-01-01T00:00:00Z', finalizers: ['other', F] }));
      const order: string[] = [];
      const client: FinalizerClient<KubeObject> = {
        patch: (...args) => (order.push('patch'), s.client.patch(...args)),
      };
      expect(await runFinalizer(client, s.current(), F, async () => void order.push('cleanup'))).toBe(true);
      expect(order).toEqual(['cleanup', 'patch']);
      expect(s.current().metadata?.finalizers).toEqual(['other']);
    });

    it('keeps the finalizer and propagates when cleanup fails', async () => {
      const s = store(app({ deletionTimestamp: '2025-01-01T00:00:00Z', finalizers: [F] }));
      await expect(runFinalizer(s.client, s.current(), F, async () => Promise.reject(new Error('route53 down')))).rejects.toThrow('route53 down');
      expect(s.current().metadata?.finalizers).toEqual([F]);
      expect(s.patches).toEqual([]);
    });

    it('propagates a conflict on removal', async () => {
      const s = store(app({ deletionTimestamp: '2025-01-01T00:00:00Z', finalizers: [F] }));
      const stale = s.current();
      s.bump();
      await expect(runFinalizer(s.client, stale, F, async () => {})).rejects.toMatchObject({ code: 409 });
    });

    it('returns true without cleanup when our finalizer is already gone', async () => {
      const s = store(app({ deletionTimestamp: '2025-01-01T00:00:00Z', finalizers: ['other'] }));
      let cleaned = false;
      expect(await runFinalizer(s.client, s.current(), F, async () => void (cleaned = true))).toBe(true);
      expect(cleaned).toBe(false);
    });
  });
});
