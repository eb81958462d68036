import { describe, expect, it } from 'vitest';
import type { RuntimeApp } from '../apis/v1alpha1/runtime-app.ts';
import { MemorySource } from '../controller-runtime/source.ts';
import { ListedHosts } from './listed-hosts.ts';

const app = (namespace: string, name: string, hostnames: string[], deleting = false): RuntimeApp =>
  ({
    apiVersion: 'cloudwright.dev/v1alpha1',
    kind: 'RuntimeApp',
    metadata: { namespace, name, ...(deleting ? { deletionTimestamp: '2026-11-30T00:00:00Z' } : {}) },
    spec: { hostnames },
  }) as unknown as RuntimeApp;

describe('ListedHosts', () => {
  it('indexes the apps it is given at start and follows their changes, leaving out apps that do not count', () => {
    const apps = new MemorySource<RuntimeApp>();
    apps.upsert(app('p', 'a', ['Shop.Example.']));
    const listed = new ListedHosts();
    listed.follow(apps, { current: [app('p', 'a', ['Shop.Example.'])], counts: (a) => !a.metadata?.deletionTimestamp });
    expect(listed.appsListing('shop.example')).toEqual(['p/a']);

    apps.upsert(app('q', 'b', ['shop.example', 'b.example']));
    expect(listed.appsListing('shop.example')).toEqual(['p/a', 'q/b']);
    apps.upsert(app('p', 'a', ['moved.example']));
    expect([listed.appsListing('shop.example'), listed.appsListing('moved.example')]).toEqual([['q/b'], ['p/a']]);
    apps.upsert(app('q', 'b', ['shop.example', 'b.example'], true));
    expect([listed.appsListing('shop.example'), listed.appsListing('b.example')]).toEqual([[], []]);
    apps.delete(app('p', 'a', []));
    expect(listed.appsListing('moved.example')).toEqual([]);
  });
});
