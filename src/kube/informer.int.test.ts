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
  const listed = { count: 0 };
  const informer = createInformer<ConfigMap>(connection, CONFIG_MAPS, {
    namespace: ns.name,
    backoff: { initialMs: 100, maxMs: 400 },
    onError: (err) => void errors.push(err),
    onListed: () => listed.count++,
  });
  informer.onChange((obj) => {
    seen.push(`${obj.metadata?.name}@${obj.metadata?.resourceVersion}`);
    // The cache is updated before handlers run, so a delete is an object the cache no longer holds.
    if (!informer.get(`${ns.name}/${obj.metadata?.name}`)) deleted.push(obj.metadata?.name ?? '');
  });
  informers.push(informer);
  informer.start();
  return { informer, seen, deleted, errors, listed };
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

  it('caches a change its projection hides without waking its handlers, and passes on one it shows', async () => {
    // What it keeps of a ConfigMap: its identity and data, not its labels (as cw-runtime keeps no app's conditions).
    const informer = createInformer<ConfigMap>(conn, CONFIG_MAPS, {
      namespace: ns.name,
      project: (obj) => {
        const { name, namespace, resourceVersion } = obj.metadata ?? {};
        return { metadata: { name, namespace, resourceVersion }, data: (obj as ConfigMap).data ?? {} };
      },
    });
    const seen: string[] = [];
    informer.onChange((obj) => void seen.push(`${obj.metadata?.name}:${JSON.stringify(obj.data)}`));
    informers.push(informer);
    informer.start();
    await informer.waitForSync();
    await configMaps.create(cm('quiet', { v: '1' }));
    await configMaps.create(cm('marker', { v: '1' }));
    await vi.waitFor(() => expect(seen).toEqual(['quiet:{"v":"1"}', 'marker:{"v":"1"}']));
    const changes = informer.changes();

    const relabelled = await configMaps.patch(ns.name, 'quiet', { metadata: { labels: { seen: 'no' } } });
    // Watch events come in order: once the marker's change is in, the label's was handled before it.
    await configMaps.patch(ns.name, 'marker', { data: { v: '2' } });
    await vi.waitFor(() => expect(seen).toContain('marker:{"v":"2"}'));
    expect(seen.filter((s) => s.startsWith('quiet'))).toEqual(['quiet:{"v":"1"}']);
    expect(informer.get(`${ns.name}/quiet`)?.metadata?.resourceVersion).toBe(relabelled.metadata?.resourceVersion);
    expect(informer.changes() - changes).toBe(1);

    await configMaps.patch(ns.name, 'quiet', { data: { v: '3' } });
    await vi.waitFor(() => expect(seen).toContain('quiet:{"v":"3"}'));
    informer.stop();
    await Promise.all([configMaps.delete(ns.name, 'quiet'), configMaps.delete(ns.name, 'marker')]);
  });

  describe('through a faulty network', () => {
    let proxy: FaultProxy;
    beforeAll(async () => void (proxy = await startFaultProxy(conn)));
    afterAll(async () => proxy?.close());

    // A list is a GET of the collection, or a watch asking for its objects as initial events (a streamed list).
    const lists = () => proxy.requests.filter((r) => (!r.watch || r.initialEvents) && r.method === 'GET').length;

    it('restarts after the connection breaks and the apiserver is unreachable for a while', async () => {
      await configMaps.create(cm('gone-while-down'));
      const { informer, errors, deleted, listed } = watchConfigMaps(proxy.connection);
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
      expect(listed.count).toBe(1);
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
      const { informer, deleted, listed } = watchConfigMaps(proxy.connection);
      await informer.waitForSync();
      const listsBefore = lists();
      expect(listed.count).toBe(1);

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
      expect(listed.count).toBe(2); // and its end told, as the first list's was
      expect(deleted).toEqual(['old']); // the relist diffed the cache and reported the missed delete
      informer.stop();
      await configMaps.delete(ns.name, 'new');
    });
  });

  describe('as a stream (WatchList)', () => {
    const COUNT = 12;
    let proxy: FaultProxy;
    let streamed: { name: string; remove: () => Promise<void> };
    beforeAll(async () => {
      proxy = await startFaultProxy(conn);
      streamed = await testNamespace(conn, 'informer-stream');
      await Promise.all(Array.from({ length: COUNT }, (_, i) => configMaps.create({ metadata: { namespace: streamed.name, name: `s-${i}` }, data: { i: String(i) } })));
    });
    afterAll(async () => {
      await proxy?.close();
      await streamed?.remove();
    });
    const seen = (from: number) => proxy.requests.slice(from).filter((r) => r.method === 'GET' && r.path.endsWith('/configmaps'));
    const start = (options: { project?: (obj: KubeObject) => ConfigMap; pageSize?: number } = {}) => {
      const informer = createInformer<ConfigMap>(proxy.connection, CONFIG_MAPS, { namespace: streamed.name, backoff: { initialMs: 50, maxMs: 100 }, ...options });
      informers.push(informer);
      informer.start();
      return informer;
    };

    it('lists as the initial events of one watch, no list request, then watches on from the bookmark’s resourceVersion', async () => {
      const before = proxy.requests.length;
      const informer = start({ project: (obj) => ({ metadata: obj.metadata ?? {}, data: { projected: 'yes' } }) });
      await informer.waitForSync();
      const requests = seen(before);
      expect(requests.filter((r) => !r.watch)).toEqual([]);
      expect(requests[0]).toMatchObject({ watch: true, initialEvents: true });
      expect(informer.list(streamed.name)).toHaveLength(COUNT);
      expect(informer.get(`${streamed.name}/s-3`)).toEqual({ metadata: expect.objectContaining({ name: 's-3' }), data: { projected: 'yes' } });
      expect(informer.get(`${streamed.name}/s-3`)?.metadata).not.toHaveProperty('managedFields');

      await configMaps.create({ metadata: { namespace: streamed.name, name: 'later' }, data: {} });
      await vi.waitFor(() => expect(informer.get(`${streamed.name}/later`)).toBeDefined());
      // The change came through a plain watch opened after the list, not through another list.
      expect(seen(before).filter((r) => r.initialEvents)).toHaveLength(1);
      expect(seen(before).filter((r) => r.watch && !r.initialEvents).length).toBeGreaterThanOrEqual(1);
      informer.stop();
      await configMaps.delete(streamed.name, 'later');
    });

    it('lists in pages where the apiserver refuses streamed lists, and does not ask again at the next relist', async () => {
      const before = proxy.requests.length;
      proxy.refuseInitialEvents = true;
      try {
        const informer = start({ pageSize: 5 });
        await informer.waitForSync();
        expect(informer.list(streamed.name)).toHaveLength(COUNT);
        const requests = seen(before);
        expect(requests.filter((r) => r.initialEvents)).toHaveLength(1);
        expect(requests.filter((r) => !r.watch)).toHaveLength(Math.ceil(COUNT / 5));

        // A relist (the watch's resourceVersion expired) goes straight to pages.
        const relistFrom = proxy.requests.length;
        proxy.goneOnNextWatch();
        proxy.dropConnections();
        await vi.waitFor(() => expect(seen(relistFrom).filter((r) => !r.watch)).toHaveLength(Math.ceil(COUNT / 5)));
        expect(seen(relistFrom).filter((r) => r.initialEvents)).toEqual([]);
        informer.stop();
      } finally {
        proxy.refuseInitialEvents = false;
      }
    });
  });

  describe('in pages', () => {
    const COUNT = 23;
    const PAGE = 5;
    let proxy: FaultProxy;
    let paged: { name: string; remove: () => Promise<void> };
    beforeAll(async () => {
      proxy = await startFaultProxy(conn);
      paged = await testNamespace(conn, 'informer-pages');
      const names = Array.from({ length: COUNT }, (_, i) => `page-${String(i).padStart(2, '0')}`);
      await Promise.all(names.map((name) => configMaps.create({ metadata: { namespace: paged.name, name }, data: { name } })));
    });
    afterAll(async () => {
      await proxy?.close();
      await paged?.remove();
    });

    const listRequests = () => proxy.requests.filter((r) => !r.watch && r.method === 'GET' && r.path.endsWith('/configmaps'));
    const cachedNames = (informer: Informer<ConfigMap>) =>
      informer
        .list()
        .map((o) => o.metadata?.name ?? '')
        .sort();
    const start = (project?: (obj: KubeObject) => ConfigMap) => {
      const informer = createInformer<ConfigMap>(proxy.connection, CONFIG_MAPS, {
        namespace: paged.name,
        initialList: 'pages',
        pageSize: PAGE,
        backoff: { initialMs: 50, maxMs: 100 },
        ...(project ? { project } : {}),
      });
      informers.push(informer);
      informer.start();
      return informer;
    };

    it('lists every object page by page, caching them without managedFields and through the projection', async () => {
      const before = listRequests().length;
      const informer = start((obj) => ({ metadata: obj.metadata ?? {}, data: { projected: 'yes' } }));
      await informer.waitForSync();
      expect(listRequests().length - before).toBe(Math.ceil(COUNT / PAGE));
      expect(cachedNames(informer)).toHaveLength(COUNT);
      expect(informer.list(paged.name)).toHaveLength(COUNT);
      expect(informer.list(ns.name)).toEqual([]);
      const cached = informer.get(`${paged.name}/page-07`);
      expect(cached).toEqual({ metadata: expect.objectContaining({ name: 'page-07', resourceVersion: expect.any(String) }), data: { projected: 'yes' } });
      expect(cached?.metadata).not.toHaveProperty('managedFields');

      // Watched objects go through the same projection as listed ones.
      await configMaps.create({ metadata: { namespace: paged.name, name: 'watched' }, data: { v: '1' } });
      await vi.waitFor(() => expect(informer.get(`${paged.name}/watched`)?.data).toEqual({ projected: 'yes' }));
      expect(informer.get(`${paged.name}/watched`)?.metadata).not.toHaveProperty('managedFields');
      informer.stop();
      await configMaps.delete(paged.name, 'watched');
    });

    it('resumes a list cut off mid-way at the page that failed, without listing the earlier pages again', async () => {
      const before = listRequests().length;
      proxy.failNextContinue('reset');
      const informer = start();
      await informer.waitForSync();
      const requests = listRequests().slice(before);
      // Page 1, page 2 (cut off), page 2 again with the same token, then pages 3 to 5.
      expect(requests).toHaveLength(Math.ceil(COUNT / PAGE) + 1);
      expect(requests.filter((r) => !r.continue)).toHaveLength(1);
      expect(requests[2]?.continue).toBe(requests[1]?.continue);
      expect(cachedNames(informer)).toHaveLength(COUNT);
      informer.stop();
    });

    it('starts the list over, still in pages, when the apiserver answers 410 Gone to an expired continue token', async () => {
      const before = listRequests().length;
      proxy.failNextContinue('gone');
      const informer = start();
      await informer.waitForSync();
      const requests = listRequests().slice(before);
      // Page 1, page 2 (410), then the whole list again from page 1.
      expect(requests).toHaveLength(2 + Math.ceil(COUNT / PAGE));
      expect(requests.filter((r) => !r.continue)).toHaveLength(2);
      expect(requests[2]?.continue).toBeUndefined();
      expect(cachedNames(informer)).toEqual(Array.from({ length: COUNT }, (_, i) => `page-${String(i).padStart(2, '0')}`));
      informer.stop();
    });

    it('backs off instead of looping when the list expires again after starting over', async () => {
      const before = listRequests().length;
      const errors: unknown[] = [];
      proxy.failNextContinue('gone', 2);
      const informer = createInformer<ConfigMap>(proxy.connection, CONFIG_MAPS, {
        namespace: paged.name,
        initialList: 'pages',
        pageSize: PAGE,
        backoff: { initialMs: 50, maxMs: 100 },
        onError: (err) => void errors.push(err),
      });
      informers.push(informer);
      informer.start();
      await informer.waitForSync();
      // Two tries of pages 1 and 2 (each 410), one failure reported, then the whole list after the backoff.
      expect(listRequests().slice(before)).toHaveLength(4 + Math.ceil(COUNT / PAGE));
      expect(errors).toEqual([expect.objectContaining({ code: 410 })]);
      expect(cachedNames(informer)).toHaveLength(COUNT);
      informer.stop();
    });
  });
});
