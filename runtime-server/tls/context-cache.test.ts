import { createSecureContext } from 'node:tls';
import { describe, expect, it } from 'vitest';
import type { CertificateRef } from './certificate-index.ts';
import { ContextCache } from './context-cache.ts';
import type { TlsMetrics } from './tls-metrics.ts';

const ref = (name: string, serial = '01'): CertificateRef => ({ namespace: 'ns', name, serial, notAfter: '' });

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
});
