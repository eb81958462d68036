import { describe, expect, it } from 'vitest';
import type { Informer } from './informer.ts';
import type { KubeObject } from './types.ts';
import { holdsWrite, waitFor, waitForAnswer } from './wait.ts';

/** The part of an informer `waitFor` uses, fed by hand: a cache and its change events. */
function cache<T extends KubeObject = KubeObject>(): Informer<T> & { put(obj: T): void; listeners(): number } {
  const objects = new Map<string, T>();
  const handlers = new Set<(obj: T) => void>();
  return {
    resource: { group: '', version: 'v1', plural: 'things', kind: 'Thing', namespaced: true },
    onChange(handler) {
      const subscription = (obj: T) => handler(obj);
      handlers.add(subscription);
      return () => void handlers.delete(subscription);
    },
    onQuietChange: () => () => {},
    get: (key) => objects.get(key),
    list: () => [...objects.values()],
    changes: () => 0,
    hasSynced: () => true,
    waitForSync: async () => {},
    start: () => {},
    stop: () => {},
    put(obj) {
      objects.set(`${obj.metadata?.namespace}/${obj.metadata?.name}`, obj);
      for (const handler of handlers) handler(obj);
    },
    listeners: () => handlers.size,
  };
}

const thing = (resourceVersion: string, ready = false): KubeObject & { ready: boolean } => ({ metadata: { namespace: 'p', name: 'a', uid: 'u-1', resourceVersion }, ready });

describe('waitFor', () => {
  it('answers at once when the condition already holds', async () => {
    const c = cache();
    c.put(thing('5', true));
    await expect(waitFor(c, 'p/a', (o) => (o as { ready?: boolean } | undefined)?.ready === true, 1000)).resolves.toMatchObject({ met: true });
    expect(c.listeners()).toBe(0);
  });

  it('answers on the change that makes it hold, and stops listening', async () => {
    const c = cache();
    c.put(thing('5'));
    const waiting = waitFor(c, 'p/a', (o) => (o as { ready?: boolean } | undefined)?.ready === true, 60_000);
    c.put(thing('6'));
    c.put(thing('7', true));
    const result = await waiting;
    expect(result).toMatchObject({ met: true, object: { metadata: { resourceVersion: '7' } } });
    expect(c.listeners()).toBe(0);
  });

  it('answers what the cache holds, not met, when time runs out', async () => {
    const c = cache();
    c.put(thing('5'));
    const result = await waitFor(c, 'p/a', () => false, 20);
    expect(result).toMatchObject({ met: false, object: { metadata: { resourceVersion: '5' } } });
    expect(c.listeners()).toBe(0);
  });

  it('holdsWrite: the same object at the written version or later', () => {
    const written = thing('7');
    expect(holdsWrite(written)(thing('6'))).toBe(false);
    expect(holdsWrite(written)(thing('8'))).toBe(true);
    expect(holdsWrite(written)({ ...thing('9'), metadata: { ...thing('9').metadata, uid: 'u-2' } })).toBe(false);
  });

  it('waitForAnswer: waits for the status of the written generation, not an older one that already answers', async () => {
    type Thing = KubeObject & { status: { observedGeneration: number; ready: boolean } };
    const c = cache<Thing>();
    const at = (generation: number, observed: number, ready: boolean): Thing => ({
      metadata: { namespace: 'p', name: 'a', uid: 'u-1', generation },
      status: { observedGeneration: observed, ready },
    });
    c.put(at(2, 1, true));
    const answer = waitForAnswer(c, at(2, 1, true), (o) => o.status.ready, 60_000);
    c.put(at(2, 2, false));
    c.put(at(2, 2, true));
    expect(await answer).toMatchObject({ status: { observedGeneration: 2, ready: true } });
  });
});
