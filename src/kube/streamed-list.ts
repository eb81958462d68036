import { Watch } from '@kubernetes/client-node';
import { KubeApiError, statusCodeOf } from './api-error.ts';
import type { KubeConnection } from './kube-config.ts';
import type { PagedListOptions } from './paged-list.ts';
import type { KubeList, KubeObject } from './types.ts';

/** The annotation of the bookmark that ends a watch's initial events (KEP-3157). */
const INITIAL_EVENTS_END = 'k8s.io/initial-events-end';

/** As a paged list's, without pages: `project` is applied to each object as its event arrives. */
export type StreamedListOptions<T extends KubeObject> = Omit<PagedListOptions<T>, 'pageSize'>;

/**
 * One resource's full list read as a stream: the apiserver's WatchList (KEP-3157, on by default since
 * Kubernetes 1.32). A watch with `sendInitialEvents=true` sends every object as an `ADDED` event from the
 * apiserver's watch cache, then a bookmark marking the end of them at the list's resourceVersion. Neither side
 * holds the whole list as one response: the apiserver reads no etcd pages and the client parses one object at
 * a time (a list read as one string stops at V8's string limit long before memory does). `list` answers
 * `undefined` where the apiserver does not offer it (it refuses the parameters, 400 or 422, or ends the watch
 * without the bookmark), and from then on at once: the caller lists in pages instead.
 */
export class StreamedList<T extends KubeObject> {
  readonly #conn: KubeConnection;
  readonly #path: string;
  readonly #options: StreamedListOptions<T>;
  #unsupported = false;

  constructor(conn: KubeConnection, path: string, options: StreamedListOptions<T>) {
    this.#conn = conn;
    this.#path = path;
    this.#options = options;
  }

  /** Every object at one resourceVersion, with it; `undefined` when the apiserver does not stream lists. */
  async list(): Promise<KubeList<T> | undefined> {
    if (this.#unsupported) return undefined;
    const listed = await this.#stream();
    if (listed === undefined) this.#unsupported = true;
    return listed;
  }

  #stream(): Promise<KubeList<T> | undefined> {
    const { labelSelector, fieldSelector, project } = this.#options;
    const items: T[] = [];
    return new Promise((resolve, reject) => {
      let settled = false;
      let request: AbortController | undefined;
      const settle = (outcome: () => void) => {
        if (settled) return;
        settled = true;
        request?.abort();
        outcome();
      };
      const onEvent = (type: string, obj: unknown) => {
        const object = obj as KubeObject;
        if (type === 'ADDED') items.push(project(object));
        else if (type === 'BOOKMARK' && object.metadata?.annotations?.[INITIAL_EVENTS_END] === 'true') {
          settle(() => resolve({ metadata: { resourceVersion: object.metadata?.resourceVersion ?? '' }, items }));
        } else if (type === 'ERROR') {
          const status = object as { code?: number; message?: string; reason?: string };
          settle(() => reject(new KubeApiError(status.code ?? 500, status.message ?? 'the apiserver ended the list with an error', status.reason)));
        }
      };
      const onDone = (err: unknown) => {
        const code = statusCodeOf(err);
        // Refused parameters; or a watch that ended, or went quiet past client-node's inactivity timeout, without
        // the bookmark: an apiserver that ignores the parameters sends the objects and then only changes.
        const ignored = !err || (err instanceof Error && err.name === 'TimeoutError');
        if (ignored || code === 400 || code === 422) settle(() => resolve(undefined));
        else settle(() => reject(failure(err)));
      };
      const query = { sendInitialEvents: true, resourceVersionMatch: 'NotOlderThan', allowWatchBookmarks: true, labelSelector, fieldSelector };
      new Watch(this.#conn.config).watch(this.#path, query, onEvent, onDone).then(
        (controller) => {
          request = controller;
          if (settled) controller.abort();
        },
        (err: unknown) => settle(() => reject(failure(err))),
      );
    });
  }
}

/** client-node's watch reports failures as Errors, but types them `any`. */
function failure(err: unknown): Error {
  return err instanceof Error ? err : new Error(`the list's watch failed: ${JSON.stringify(err)}`);
}
