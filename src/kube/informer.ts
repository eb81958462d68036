import { ListWatch, type KubernetesObject, type ListPromise, type Watch } from '@kubernetes/client-node';
import type { KubeConnection } from './kube-config.ts';
import { PagedList } from './paged-list.ts';
import { StreamedList } from './streamed-list.ts';
import { cacheProjection } from './projection.ts';
import { resourcePath, type ResourceRef } from './resource.ts';
import { StoppableWatch } from './stoppable-watch.ts';
import { splitKey, type KubeObject } from './types.ts';

/** Reports a failure the informer recovered from; `retryInMs` is set when it restarts list+watch. */
export type InformerErrorHandler = (err: unknown, info: { phase: 'list-watch' | 'handler'; retryInMs?: number }) => void;

export interface InformerOptions<T extends KubeObject = KubeObject> {
  /** Watch one namespace; all namespaces when omitted. */
  namespace?: string;
  labelSelector?: string;
  fieldSelector?: string;
  onError?: InformerErrorHandler;
  /** Called each time a whole list has been read (the first and every relist): a failure reported before is over. */
  onListed?: () => void;
  /** Restart backoff after a failed list or watch: doubles from `initialMs` up to `maxMs` (default 1 s → 30 s). */
  backoff?: { initialMs: number; maxMs: number };
  /** Objects per list request (`limit`) where lists are read in pages; 500 when omitted. */
  pageSize?: number;
  /**
   * How the whole list is read, at the start and after a 410: `stream` (the default) as the initial events of
   * a watch where the apiserver offers it ({@link StreamedList}), else in pages; `pages` always in pages.
   */
  initialList?: 'stream' | 'pages';
  /**
   * What the cache keeps of each object, for a process that reads only part of it: applied to every listed
   * and watched object, after `metadata.managedFields` (never read here, often half an object) was dropped.
   * It must keep `metadata.name`, `namespace` and `resourceVersion`, which the cache is keyed and diffed by.
   */
  project?: (obj: KubeObject) => T;
}

/**
 * A list+watch cache of one resource type. Handlers get the object on every add, update and delete; they are
 * not told which (controllers reconcile by key and re-read the cache). Reads are by `namespace/name` key.
 * Cached objects are shared with every reader: never mutate them (copy with `structuredClone` first).
 */
export interface Informer<T extends KubeObject> {
  readonly resource: ResourceRef;
  /** Calls `handler` on every change until the returned function is called. */
  onChange(handler: (obj: T) => void): () => void;
  /**
   * Calls `handler` on every change the projection hides (cached with its new resourceVersion, no `onChange`):
   * for a reader that follows how far the cache has got, not what it holds.
   */
  onQuietChange(handler: (obj: T) => void): () => void;
  get(key: string): T | undefined;
  /**
   * Every cached object, or only those of `namespace`: the cache is kept by namespace, so that is a lookup
   * and not a walk over every object (a project's list stays cheap among thousands of projects).
   */
  list(namespace?: string): readonly T[];
  /**
   * How many adds, updates and deletes the cache has applied: it moves whenever what `get` and `list`
   * answer may have changed, so a reader can keep what it derived from them until it moves.
   */
  changes(): number;
  /** True once the first list has been applied; stays true across relists. */
  hasSynced(): boolean;
  waitForSync(signal?: AbortSignal): Promise<void>;
  /**
   * Starts list+watch in the background; it retries forever until {@link stop}. Starting a started informer
   * does nothing; starting a stopped one throws (create a new one instead).
   */
  start(): void;
  /** Stops for good: the watch closes, pending retries are dropped, the cache keeps what it had. */
  stop(): void;
}

/**
 * An informer on client-node's `ListWatch`, listing as a stream of watch events where the apiserver offers
 * it ({@link StreamedList}), else in pages ({@link PagedList}). `ListWatch` relists by itself
 * after a 410 Gone (as an HTTP status or as a watch `ERROR` event) and reconnects after a clean close or its
 * inactivity timeout, but on any other failure (list error, connection refused or reset, 5xx, 403) emits
 * `error` and stops for good. This wrapper restarts it with exponential backoff, from the last
 * resourceVersion (or, for a list cut short, from the page that failed), so an error never stops the informer.
 */
export function createInformer<T extends KubeObject>(conn: KubeConnection, resource: ResourceRef, options: InformerOptions<T> = {}): Informer<T> {
  const { labelSelector, fieldSelector, onError = () => {} } = options;
  const { initialMs, maxMs } = options.backoff ?? { initialMs: 1000, maxMs: 30_000 };
  const path = resourcePath(resource, options.namespace);
  const handlers = new Set<(obj: T) => void>();
  const quietHandlers = new Set<(obj: T) => void>();
  const syncWaiters = new Set<() => void>();
  const delays = new Set<NodeJS.Timeout>();
  const project = cacheProjection(resource, options.project);
  const pages = new PagedList(conn, path, { labelSelector, fieldSelector, pageSize: options.pageSize, project });
  const streamed = options.initialList === 'pages' ? undefined : new StreamedList(conn, path, { labelSelector, fieldSelector, project });
  const watch = new StoppableWatch(conn.config, project);
  if (options.project) {
    watch.hidden = (projected) => {
      const { namespace, name } = projected.metadata ?? {};
      const cached = lw.get(name ?? '', namespace || undefined) as KubeObject | undefined;
      return cached !== undefined && sameButVersion(cached, projected);
    };
  }
  let running = false;
  let stopped = false;
  let synced = false;
  let listed = false;
  let failures = 0;
  let changes = 0;
  let restartTimer: NodeJS.Timeout | undefined;

  const list = async () => {
    const result = (await streamed?.list()) ?? (await pages.list());
    listed = true;
    failures = 0;
    options.onListed?.();
    return result;
  };

  // A pending ListWatch reconnect delay is dropped (never resolves) on stop, so no watch is opened afterwards.
  const delayFn = (ms: number) =>
    new Promise<void>((resolve) => {
      if (!running) return;
      const timer = setTimeout(() => {
        delays.delete(timer);
        resolve();
      }, ms);
      delays.add(timer);
    });

  // client-node's object types carry Date fields; ours are the JSON it actually stores. Cast at this one seam.
  const lw = new ListWatch<KubernetesObject>(path, watch as Watch, list as unknown as ListPromise<KubernetesObject>, false, labelSelector, fieldSelector, { delayFn });

  const report: InformerErrorHandler = (err, info) => {
    try {
      onError(err, info);
    } catch {
      // A broken error reporter must not stop the informer.
    }
  };
  // ListWatch has applied the change to its cache before it calls this. A change the projection hides (only
  // dropped fields moved: the operator rewriting every app's status, for a runtime replica that reads none of it)
  // is cached, its resourceVersion with it, but wakes nobody: each would be a reconcile queued ahead of a deploy.
  const emit = (obj: KubernetesObject) => {
    const quiet = watch.quiet;
    if (!quiet) changes++;
    for (const handler of quiet ? quietHandlers : handlers) {
      // ListWatch runs handlers inside an async callback: a throw would be an unhandled rejection.
      try {
        handler(obj as T);
      } catch (err) {
        report(err, { phase: 'handler' });
      }
    }
  };
  lw.on('add', emit);
  lw.on('update', emit);
  lw.on('delete', emit);
  const restart = (err: unknown) => {
    // Stopping aborts the watch, which ListWatch reports as an error too.
    if (!running || restartTimer) return;
    const retryInMs = Math.round(Math.min(maxMs, initialMs * 2 ** failures) * (0.8 + Math.random() * 0.4));
    failures++;
    report(err, { phase: 'list-watch', retryInMs });
    restartTimer = setTimeout(() => {
      restartTimer = undefined;
      if (running) lw.start().catch(restart);
    }, retryInMs);
  };
  lw.on('error', restart);

  watch.onActivity = () => {
    failures = 0;
  };
  watch.onOpen = () => {
    if (!listed || synced) return;
    synced = true;
    for (const wake of syncWaiters) wake();
    syncWaiters.clear();
  };

  return {
    resource,
    onChange(handler) {
      // Wrapped, so one function subscribed twice is two subscriptions, each removed on its own.
      const subscription = (obj: T) => handler(obj);
      handlers.add(subscription);
      return () => void handlers.delete(subscription);
    },
    onQuietChange(handler) {
      const subscription = (obj: T) => handler(obj);
      quietHandlers.add(subscription);
      return () => void quietHandlers.delete(subscription);
    },
    get(key) {
      const { namespace, name } = splitKey(key);
      return lw.get(name, namespace || undefined) as T | undefined;
    },
    list: (namespace) => lw.list(namespace) as readonly KubeObject[] as readonly T[],
    changes: () => changes,
    hasSynced: () => synced,
    waitForSync(signal) {
      if (synced) return Promise.resolve();
      // An abort listener added to a signal already aborted never runs: answer that at once.
      if (signal?.aborted) return Promise.reject(signal.reason);
      return new Promise((resolve, reject) => {
        const abort = () => {
          syncWaiters.delete(wake);
          reject(signal?.reason);
        };
        const wake = () => {
          signal?.removeEventListener('abort', abort);
          resolve();
        };
        syncWaiters.add(wake);
        signal?.addEventListener('abort', abort, { once: true });
      });
    },
    start() {
      // A list or watch request of the stopped run may still be in flight, and client-node's ListWatch would
      // carry on with it next to a new run: two list-watch loops on one cache. So a stop is for good.
      if (stopped) throw new Error(`the ${resource.plural} informer was stopped; create a new one to watch again`);
      if (running) return;
      running = true;
      lw.start().catch(restart);
    },
    stop() {
      stopped = true;
      running = false;
      clearTimeout(restartTimer);
      restartTimer = undefined;
      for (const timer of delays) clearTimeout(timer);
      delays.clear();
      watch.stop();
      void lw.stop();
    },
  };
}

/** The two are the same object but for `metadata.resourceVersion` (projections build their keys in one order). */
function sameButVersion(a: KubeObject, b: KubeObject): boolean {
  const unversioned = (o: KubeObject): string => JSON.stringify({ ...o, metadata: { ...o.metadata, resourceVersion: undefined } });
  return unversioned(a) === unversioned(b);
}
