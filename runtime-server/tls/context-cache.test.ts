import { createSecureContext } from 'node:tls';
import { describe, expect, it } from 'vitest';
import type { CertificateRef } from './certificate-index.ts';
import { ContextCache } from './context-cache.ts';
import type { TlsMetrics } from './tls-metrics.ts';

const ref = (name: string, serial = '01', namespace = 'ns'): CertificateRef => ({ namespace, name, serial, notAfter: '' });

/** A cache whose loads are counted, each settled by the test (a missing certificate rejects). */
function counted(max: number, missing: Set<string> = new Set()) {
  const loads: string[] = [];
  const metrics: string[] = [];
  const errors: string[] = [];
  const recorder: TlsMetrics = { handshake: () => {}, load: (trigger, result) => metrics.push(`${trigger} ${result}`) };
  const cache = new ContextCache({
    max,
    metrics: recorder,
    onError: (r) => errors.push(r.name),
    load: async (r) => {
      loads.push(`${r.name}/${r.serial}`);
      await Promise.resolve();
      if (missing.has(r.name)) throw new Error('not stored');
      return createSecureContext();
    },
  });
  return { cache, loads, metrics, errors };
}

describe('ContextCache', () => {
  it('loads a certificate once however many handshakes ask for it at once, then answers from memory', async () => {
    const { cache, loads, metrics } = counted(10);
    const [a, b] = await Promise.all([cache.fetch(ref('a')), cache.fetch(ref('a'))]);
    expect(a).toBeDefined();
    expect(b).toBe(a);
    expect(cache.get(ref('a'))).toBe(a);
    expect(loads).toEqual(['a/01']);
    expect(metrics).toEqual(['handshake loaded']);
  });

  it('holds at most its bound, dropping the least recently used', async () => {
    const { cache, loads } = counted(2);
    await cache.fetch(ref('a'));
    await cache.fetch(ref('b'));
    cache.get(ref('a')); // a is used again: b is now the oldest
    await cache.fetch(ref('c'));
    expect(cache.size).toBe(2);
    expect(cache.has(ref('a'))).toBe(true);
    expect(cache.has(ref('b'))).toBe(false);
    await cache.fetch(ref('b'));
    expect(loads).toEqual(['a/01', 'b/01', 'c/01', 'b/01']);
  });

  it('preloads a new serial while there is room, or when it replaces one held; else leaves it to the first handshake', async () => {
    const { cache, loads, metrics } = counted(2);
    await cache.fetch(ref('a'));
    expect(await cache.preload(ref('b'))).toBeDefined();
    expect(cache.preload(ref('c'))).toBeUndefined(); // full, and replaces nothing held
    expect(await cache.preload(ref('a', '02'), ref('a', '01'))).toBeDefined(); // a renewal of a held certificate
    expect(cache.has(ref('a', '01'))).toBe(false);
    expect(cache.has(ref('c'))).toBe(false);
    expect(loads).toEqual(['a/01', 'b/01', 'a/02']);
    expect(metrics).toEqual(['handshake loaded', 'preload loaded', 'preload loaded']);
  });

  it('answers undefined for a certificate that cannot be loaded, reports it, and tries again next time', async () => {
    const missing = new Set(['gone']);
    const { cache, loads, errors, metrics } = counted(2, missing);
    expect(await cache.fetch(ref('gone'))).toBeUndefined();
    expect(cache.size).toBe(0);
    missing.clear();
    expect(await cache.fetch(ref('gone'))).toBeDefined();
    expect(loads).toEqual(['gone/01', 'gone/01']);
    expect(errors).toEqual(['gone']);
    expect(metrics).toEqual(['handshake error', 'handshake loaded']);
  });

  describe('shared between projects', () => {
    const hostile = (i: number) => ref(`h${i}`, '01', 'hostile');
    const victim = (i: number) => ref(`v${i}`, '01', 'victim');

    it('lets one project use the room others leave, but never push out a project holding fewer than it', async () => {
      const { cache, loads } = counted(10);
      for (let i = 0; i < 3; i++) await cache.fetch(victim(i));
      // The hostile project handshakes over its 50 certificates again and again, keeping each one fresh.
      for (let round = 0; round < 3; round++) for (let i = 0; i < 50; i++) await cache.fetch(hostile(i));
      expect(cache.size).toBe(10);
      expect(cache.heldBy('victim')).toBe(3);
      expect(cache.heldBy('hostile')).toBe(7);
      const victimLoads = loads.filter((l) => l.startsWith('v'));
      for (let i = 0; i < 3; i++) expect(cache.get(victim(i))).toBeDefined();
      expect(victimLoads).toHaveLength(3); // answered from memory throughout
    });

    it('gives a project alone the whole bound', async () => {
      const { cache } = counted(10);
      for (let i = 0; i < 25; i++) await cache.fetch(hostile(i));
      expect(cache.heldBy('hostile')).toBe(10);
      expect(cache.has(hostile(24))).toBe(true);
      expect(cache.has(hostile(14))).toBe(false);
    });

    it('takes from the project holding the most when another grows, down to an even split', async () => {
      const { cache } = counted(10);
      for (let i = 0; i < 10; i++) await cache.fetch(hostile(i));
      for (let i = 0; i < 20; i++) await cache.fetch(victim(i));
      expect(cache.heldBy('hostile')).toBe(5);
      expect(cache.heldBy('victim')).toBe(5);
      expect(cache.has(victim(19))).toBe(true);
      expect(cache.has(hostile(9))).toBe(true); // the hostile project's most recent stay
      expect(cache.has(hostile(4))).toBe(false);
    });

    it('keeps each project its most recently used certificate when there are more projects than room', async () => {
      const { cache } = counted(2);
      await cache.fetch(ref('a', '01', 'one'));
      await cache.fetch(ref('b', '01', 'two'));
      await cache.fetch(ref('c', '01', 'three'));
      expect(cache.size).toBe(2);
      expect(cache.has(ref('c', '01', 'three'))).toBe(true);
    });

    it('forgets and renews within a project without touching the others', async () => {
      const { cache } = counted(4);
      await cache.fetch(victim(0));
      await cache.fetch(hostile(0));
      expect(await cache.preload(ref('v0', '02', 'victim'), victim(0))).toBeDefined();
      cache.forget(hostile(0));
      expect(cache.heldBy('victim')).toBe(1);
      expect(cache.heldBy('hostile')).toBe(0);
      expect(cache.size).toBe(1);
    });
  });
});
