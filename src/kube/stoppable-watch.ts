import { Watch, type KubeConfig } from '@kubernetes/client-node';
import type { KubeObject } from './types.ts';

type WatchArgs = Parameters<Watch['watch']>;

/**
 * client-node's `Watch`, hardened for use under `ListWatch`:
 *
 * - a failure before the request is sent (auth plugin, no cluster) is reported through `done` instead of
 *   rejecting, because `ListWatch` calls `watch()` from a callback where a rejection is unhandled and would
 *   kill the process;
 * - once stopped it opens no new watch and aborts one that was still connecting, because `ListWatch.stop()`
 *   only aborts a request it already holds;
 * - it asks for bookmarks, so the resourceVersion advances on quiet resources and a reconnect after the
 *   client's 30 s inactivity timeout seldom lands on an expired version (410);
 * - it hands `ListWatch` each object as the informer caches it (`project`), the shape its list items have, and
 *   says while it hands over a change its projection hides (`quiet`; see `hidden`).
 */
export class StoppableWatch extends Watch {
  stopped = false;
  /** Called for every event received, so the owner can reset its backoff. */
  onActivity: () => void = () => {};
  /** Called when a watch is about to be opened: `ListWatch` has applied any list to its cache by then. */
  onOpen: () => void = () => {};
  /** Whether a modified object, as projected, is what the cache holds already but for its resourceVersion. */
  hidden: (projected: KubeObject) => boolean = () => false;
  /** True while `ListWatch` is handed a change `hidden` found: it applies it synchronously, calling its handlers. */
  quiet = false;
  #active: AbortController | undefined;
  readonly #project: (obj: KubeObject) => KubeObject;

  constructor(config: KubeConfig, project: (obj: KubeObject) => KubeObject) {
    super(config);
    this.#project = project;
  }

  override async watch(path: WatchArgs[0], query: WatchArgs[1], callback: WatchArgs[2], done: WatchArgs[3]): Promise<AbortController> {
    if (this.stopped) return new AbortController();
    this.onOpen();
    const onEvent: WatchArgs[2] = (phase, obj, raw) => {
      this.onActivity();
      // ERROR carries a Status and BOOKMARK only a resourceVersion: neither is an object to cache.
      const objectEvent = phase === 'ADDED' || phase === 'MODIFIED' || phase === 'DELETED';
      const cached = objectEvent ? this.#project(obj as KubeObject) : obj;
      this.quiet = phase === 'MODIFIED' && this.hidden(cached as KubeObject);
      try {
        callback(phase, cached, raw);
      } finally {
        this.quiet = false;
      }
    };
    try {
      const controller = await super.watch(path, { ...query, allowWatchBookmarks: true }, onEvent, done);
      if (this.stopped) controller.abort();
      this.#active = controller;
      return controller;
    } catch (err) {
      done(err);
      return new AbortController();
    }
  }

  stop(): void {
    this.stopped = true;
    this.#active?.abort();
    this.#active = undefined;
  }
}
