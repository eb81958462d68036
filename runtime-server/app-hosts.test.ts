import { describe, expect, it } from 'vitest';
import type { AppHostname } from '../src/apis/v1alpha1/app-hostname.ts';
import type { RuntimeApp } from '../src/apis/v1alpha1/runtime-app.ts';
import { MemorySource } from '../src/controller-runtime/source.ts';
import { AppHosts } from './app-hosts.ts';

const app = (namespace: string, name: string, hostnames: string[] = []): RuntimeApp =>
  ({ apiVersion: 'cloudwright.dev/v1alpha1', kind: 'RuntimeApp', metadata: { namespace, name }, spec: { hostnames } }) as unknown as RuntimeApp;
const attached = (namespace: string, name: string, hostname: string, appName: string): AppHostname =>
  ({ apiVersion: 'cloudwright.dev/v1alpha1', kind: 'AppHostname', metadata: { namespace, name }, spec: { hostname, appRef: { name: appName } } }) as unknown as AppHostname;

describe('AppHosts', () => {
  it('names the app of a default host by its name, and of deploy host names and AppHostnames by their events', () => {
    const apps = new MemorySource<RuntimeApp>();
    const hostnames = new MemorySource<AppHostname>();
    const hosts = new AppHosts('Apps.Test.');
    hosts.follow(apps, hostnames);
    apps.upsert(app('p', 'a', ['Shop.Example.', 'both.example']));
    apps.upsert(app('q', 'b', ['both.example']));
    hostnames.upsert(attached('p', 'h1', 'www.example', 'a'));

    expect(hosts.appsAt('web.p.apps.test')).toEqual(['p/web']); // whether p/web exists is the caller's question
    expect(hosts.appsAt('x.web.p.apps.test')).toEqual([]);
    expect(hosts.appsAt('p.apps.test')).toEqual([]);
    expect(hosts.appsAt('shop.example')).toEqual(['p/a']);
    expect(hosts.appsAt('both.example').sort()).toEqual(['p/a', 'q/b']);
    expect(hosts.appsAt('www.example')).toEqual(['p/a']);

    apps.upsert(app('p', 'a', ['new.example'])); // changed: the old names go
    hostnames.delete(attached('p', 'h1', 'www.example', 'a'));
    apps.delete(app('q', 'b', ['both.example']));
    expect([hosts.appsAt('shop.example'), hosts.appsAt('both.example'), hosts.appsAt('www.example'), hosts.appsAt('new.example')]).toEqual([[], [], [], ['p/a']]);

    // Two projects attaching one name (a contest the reconcile decides), and an AppHostname moved to another app.
    hostnames.upsert(attached('p', 'shared.example', 'shared.example', 'a'));
    hostnames.upsert(attached('q', 'shared.example', 'shared.example', 'c'));
    hostnames.upsert(attached('p', 'shared.example', 'shared.example', 'd'));
    expect(hosts.appsAt('shared.example').sort()).toEqual(['p/d', 'q/c']);
    hostnames.delete(attached('q', 'shared.example', 'shared.example', 'c'));
    expect(hosts.appsAt('shared.example')).toEqual(['p/d']);
  });

  it('names the apps with a deploy host name or an AppHostname in a zone, and no app by its default host', () => {
    const apps = new MemorySource<RuntimeApp>();
    const hostnames = new MemorySource<AppHostname>();
    const hosts = new AppHosts('apps.test');
    hosts.follow(apps, hostnames);
    apps.upsert(app('p', 'a', ['shop.example', 'www.shop.example']));
    apps.upsert(app('p', 'b', ['shopping.example']));
    apps.upsert(app('q', 'c'));
    hostnames.upsert(attached('q', 'api.shop.example', 'api.shop.example', 'c'));
    hostnames.upsert(attached('q', 'other.example', 'other.example', 'd'));

    expect(hosts.appsInZone('shop.example').sort()).toEqual(['p/a', 'q/c']);
    expect(hosts.appsInZone('www.shop.example')).toEqual(['p/a']);
    expect(hosts.appsInZone('example').sort()).toEqual(['p/a', 'p/b', 'q/c', 'q/d']);
    expect(hosts.appsInZone('apps.test')).toEqual([]);
    apps.delete(app('p', 'a'));
    expect(hosts.appsInZone('shop.example')).toEqual(['q/c']);
  });
});
