import { isGone } from './api-error.ts';
import type { KubeConnection } from './kube-config.ts';
import type { KubeList, KubeObject } from './types.ts';

/** Objects per list request when the caller does not say: client-go's reflector pages by 500 too. */
export const DEFAULT_PAGE_SIZE = 500;

export interface PagedListOptions<T extends KubeObject> {
  labelSelector?: string | undefined;
  fieldSelector?: string | undefined;
  pageSize?: number | undefined;
  /** Applied to each item as its page arrives, so a raw page is all the list ever holds unprojected. */
  project: (obj: KubeObject) => T;
}

/**
 * One resource's full list fetched in pages (`limit` and `continue`), as client-go's pager does. A failed page
 * leaves its progress here, so calling {@link PagedList.list} again resumes at that page instead of starting
 * over: a relist cut short by a network fault costs one page, not a second full list. A `continue` token the
 * apiserver no longer honours (410 Gone once etcd compacted past the list's revision) restarts the list from
 * its first page, still in pages: an unpaginated fallback would be the spike pagination exists to avoid. It
 * restarts at once only once per call, so a list slower than compaction backs off instead of looping.
 */
export class PagedList<T extends KubeObject> {
  readonly #conn: KubeConnection;
  readonly #path: string;
  readonly #options: PagedListOptions<T>;
  #items: T[] = [];
  #continue: string | undefined;

  constructor(conn: KubeConnection, path: string, options: PagedListOptions<T>) {
    this.#conn = conn;
    this.#path = path;
    this.#options = options;
  }

  /** Resolves with every item at one resourceVersion (the first page's), with that resourceVersion. */
  async list(): Promise<KubeList<T>> {
    const { labelSelector, fieldSelector, pageSize = DEFAULT_PAGE_SIZE, project } = this.#options;
    let restarted = false;
    for (;;) {
      let page: KubeList<KubeObject>;
      try {
        page = await this.#conn.api.request<KubeList<KubeObject>>('GET', this.#path, {
          query: { labelSelector, fieldSelector, limit: pageSize, continue: this.#continue },
        });
      } catch (err) {
        if (this.#continue === undefined || !isGone(err)) throw err;
        this.#reset();
        // A second expiry in one call means the list outlasts etcd's compaction: back off (the informer retries).
        if (restarted) throw err;
        restarted = true;
        continue;
      }
      for (const item of page.items) this.#items.push(project(item));
      // Every page of one list carries the resourceVersion its first page was read at.
      const next = page.metadata?.continue;
      if (next) {
        this.#continue = next;
        continue;
      }
      const items = this.#items;
      this.#reset();
      return { ...page, metadata: { resourceVersion: page.metadata?.resourceVersion }, items };
    }
  }

  #reset(): void {
    this.#items = [];
    this.#continue = undefined;
  }
}
