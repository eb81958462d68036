import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createInformer, type Informer } from './informer.ts';
import type { KubeConnection } from './kube-config.ts';
import { objectClient, type ObjectClient } from './object-client.ts';
import { CONFIG_MAPS } from './resource.ts';
import { startFaultProxy, type FaultProxy } from './testing/fault-proxy.ts';
import { testConnection, testNamespace } from './testing/test-kube.ts';
import type { KubeObject } from './types.ts';

interface ConfigMap extends KubeObject {
  data?: Record<string, string>;
}

let conn: KubeConnection;
let ns: { name: string; remove: () => Promise<void> };
let configMaps: ObjectClient<ConfigMap>;
const informers: Informer<ConfigMap>[] = [];

beforeAll(async () => {
  conn = testConnection();
  ns = await testNamespace(conn, 'informer');
  configMaps = objectClient<ConfigMap>(conn, CONFIG_MAPS);
});

afterAll(async () => {
  for (const informer of informers) informer.stop();
  await ns?.remove();
});

const cm = (name: string, data: Record<string, string> = {}): ConfigMap => ({ metadata: { namespace: ns.name, name }, data });

function watchConfigMaps(connection: KubeConnection, errors: unknown[] = []) {
  const seen: string[] = [];
  const deleted: string[] = [];
  const informer = createInformer<ConfigMap>(connection, CONFIG_MAPS, {
    namespace: ns.name,
    backoff: { initialMs: 100, maxMs: 400 },
    onError: (err) => void errors.push(err),
  });
  informer.onChange((obj) => {
    seen.push(`${obj.metadata?.name}@${obj.metadata?.resourceVersion}`);
    // The cache is updated before handlers run, so a delete is an object the cache no longer holds.
    if (!informer.get(`${ns.name}/${obj.metadata?.name}`)) deleted.push(obj.metadata?.name ?? '');
  });
  informers.push(informer);
  informer.start();
  return { informer, seen, deleted, errors };
}

describe('informer', () => {
  it('refuses at once to wait for sync on a signal already aborted (a stop during startup), and after it', async () => {
    const informer = createInformer<KubeObject>(conn, CONFIG_MAPS, { namespace: ns.name });
    await expect(informer.waitForSync(AbortSignal.abort(new Error('stopped')))).rejects.toThrow('stopped');
    const later = new AbortController();
    const waiting = informer.waitForSync(later.signal);
    later.abort(new Error('stopped later'));
    await expect(waiting).rejects.toThrow('stopped later');
  });

  it('cannot be started again once stopped, so no second list-watch loop joins a request of the first', async () => {
    const informer = createInformer<KubeObject>(conn, CONFIG_MAPS, { namespace: ns.name });
    informer.start();
    informer.start(); // started already: nothing happens
    informer.stop();
    expect(() => informer.start()).toThrow('the configmaps informer was stopped; create a new one to watch again');
  });

  it('lists existing objects, then sees creates, updates and deletes', async () => {
    await configMaps.create(cm('before', { v: '0' }));
    const { informer, seen } = watchConfigMaps(conn);
    await informer.waitForSync();
    expect(informer.get(`${ns.name}/before`)?.data).toEqual({ v: '0' });
    expect(informer.get(`${ns.name}/before`)).toMatchObject({ apiVersion: 'v1', kind: 'ConfigMap' });

    const synced = informer.changes();
    const created = await configMaps.create(cm('a', { v: '1' }));
    await vi.waitFor(() => expect(informer.get(`${ns.name}/a`)?.data).toEqual({ v: '1' }));
    expect(typeof informer.get(`${ns.name}/a`)?.metadata?.creationTimestamp).toBe('string'); // plain JSON

    const updated = await configMaps.patch(ns.name, 'a', { data: { v: '2' } });
    expect(updated.metadata?.resourceVersion).not.toBe(created.metadata?.resourceVersion);
    await vi.waitFor(() => expect(informer.get(`${ns.name}/a`)?.data).toEqual({ v: '2' }));

    await configMaps.delete(ns.name, 'a');
    await vi.waitFor(() => expect(informer.get(`${ns.name}/a`)).toBeUndefined());
    expect(seen.filter((s) => s.startsWith('a@'))).toHaveLength(3);
    expect(informer.changes() - synced).toBe(3);
    expect(informer.list().map((o) => o.metadata?.name)).toEqual(['before']);
    await configMaps.delete(ns.name, 'before');
  });

  describe('through a faulty network', () => {
    let proxy: FaultProxy;
    beforeAll(async () => void (proxy = await startFaultProxy(conn)));
    afterAll(async () => proxy?.close());

    const lists = () => proxy.requests.filter((r) => !r.watch && r.method === 'GET').length;

    it('restarts after the connection breaks and the apiserver is unreachable for a while', async () => {
      await configMaps.create(cm('gone-while-down'));
      const { informer, errors, deleted } = watchConfigMaps(proxy.connection);
      await informer.waitForSync();
      expect(informer.get(`${ns.name}/gone-while-down`)).toBeDefined();
      const listsBefore = lists();

      proxy.mode = 'reset';
      proxy.dropConnections();
      await configMaps.delete(ns.name, 'gone-while-down');
      await configMaps.create(cm('made-while-down'));
      // ListWatch gives up on a reset connection; our wrapper must keep retrying through the outage.
      await vi.waitFor(() => expect(errors.length).toBeGreaterThanOrEqual(2), { timeout: 10_000 });
      proxy.mode = 'pass';

      await vi.waitFor(
        () => {
          expect(informer.get(`${ns.name}/made-while-down`)).toBeDefined();
          expect(informer.get(`${ns.name}/gone-while-down`)).toBeUndefined();
        },
        { timeout: 10_000 },
      );
      expect(deleted).toEqual(['gone-while-down']);
      expect(lists()).toBe(listsBefore); // resumed from its resourceVersion: the apiserver replayed the delete
      await configMaps.create(cm('after-recovery'));
      await vi.waitFor(() => expect(informer.get(`${ns.name}/after-recovery`)).toBeDefined(), { timeout: 10_000 });
      informer.stop();
      await configMaps.delete(ns.name, 'made-while-down');
      await configMaps.delete(ns.name, 'after-recovery');
    });

    it.each([
      ['an HTTP 410 on the watch request', (p: FaultProxy) => p.goneOnNextWatch()],
      ['an ERROR event with code 410 in the watch stream', (p: FaultProxy) => p.expireNextWatch()],
    ])('relists after %s, and notices deletes it missed', async (_, inject410) => {
      await configMaps.create(cm('old'));
      const { informer, deleted } = watchConfigMaps(proxy.connection);
      await informer.waitForSync();
      const listsBefore = lists();

      inject410(proxy);
      proxy.mode = 'reset'; // keep it away while the world changes
      proxy.dropConnections();
      await configMaps.delete(ns.name, 'old');
      await configMaps.create(cm('new'));
      proxy.mode = 'pass';

      await vi.waitFor(
        () => {
          expect(informer.get(`${ns.name}/new`)).toBeDefined();
          expect(informer.get(`${ns.name}/old`)).toBeUndefined();
        },
        { timeout: 15_000 },
      );
      expect(lists()).toBe(listsBefore + 1); // a relist, not a resumed watch
      expect(deleted).toEqual(['old']); // the relist diffed the cache and reported the missed delete
      informer.stop();
      await configMaps.delete(ns.name, 'new');
    });
  });
});
