import { describe, expect, it } from 'vitest';
import type { RuntimeApp } from '../apis/v1alpha1/runtime-app.ts';
import { MemorySource } from '../controller-runtime/source.ts';
import { listedHostsOf } from '../runtime-contract/listed-hosts.ts';
import { InformerIndex, sharedIndex } from './informer-index.ts';

const app = (namespace: string, name: string, hostnames: string[], deleting = false): RuntimeApp =>
  ({
    apiVersion: 'cloudwright.dev/v1alpha1',
    kind: 'RuntimeApp',
    metadata: { namespace, name, ...(deleting ? { deletionTimestamp: '2026-11-30T00:00:00Z' } : {}) },
    spec: { hostnames },
  }) as unknown as RuntimeApp;

describe('InformerIndex (apps by the host names they list)', () => {
  it('indexes what the cache holds at start and follows its changes, leaving out objects that give no value', () => {
    const apps = new MemorySource<RuntimeApp>();
    apps.upsert(app('p', 'a', ['Shop.Example.']));
    const index = new InformerIndex(apps, (a) => (a.metadata?.deletionTimestamp ? [] : listedHostsOf(a)), [app('p', 'a', ['Shop.Example.'])]);
    expect(index.keys('shop.example')).toEqual(['p/a']);

    apps.upsert(app('q', 'b', ['shop.example', 'b.example']));
    expect(index.keys('shop.example')).toEqual(['p/a', 'q/b']);
    expect(index.objects('b.example').map((a) => a.metadata?.name)).toEqual(['b']);
    apps.upsert(app('p', 'a', ['moved.example']));
    expect([index.keys('shop.example'), index.keys('moved.example')]).toEqual([['q/b'], ['p/a']]);
    apps.upsert(app('q', 'b', ['shop.example', 'b.example'], true));
    expect([index.keys('shop.example'), index.keys('b.example')]).toEqual([[], []]);
    apps.delete(app('p', 'a', []));
    expect([index.keys('moved.example'), index.objects('moved.example')]).toEqual([[], []]);
  });

  it('is one index per cache and name, whoever asks for it', () => {
    const apps = new MemorySource<RuntimeApp>();
    apps.upsert(app('p', 'a', ['shop.example']));
    const first = sharedIndex(apps, 'listed-hosts', listedHostsOf);
    expect(sharedIndex(apps, 'listed-hosts', listedHostsOf)).toBe(first);
    expect(sharedIndex(new MemorySource<RuntimeApp>(), 'listed-hosts', listedHostsOf)).not.toBe(first);
    expect(first.keys('shop.example')).toEqual(['p/a']);
  });
});
