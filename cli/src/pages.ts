// Following the API's paginated lists: `limit` and the opaque `cursor` each page answers as `next`.

/** The API's largest page (api/routes/pagination.ts). */
const PAGE_MAX = 1000;

export type PageQuery = { limit: number; cursor?: string };

/**
 * The items of a paginated list, page by page, until its last page or `limit` items: `next` is where the
 * list continues when `limit` cut it short, else null. A list that changes meanwhile neither repeats nor
 * skips an item that was there throughout (the cursor names an item, not a position).
 */
export async function collectPages<T>(fetchPage: (query: PageQuery) => Promise<{ items: T[]; next: string | null }>, limit = Infinity): Promise<{ items: T[]; next: string | null }> {
  const items: T[] = [];
  let cursor: string | undefined;
  for (;;) {
    const page = await fetchPage({ limit: Math.min(PAGE_MAX, limit - items.length), ...(cursor ? { cursor } : {}) });
    items.push(...page.items);
    if (!page.next || items.length >= limit) return { items, next: page.next };
    cursor = page.next;
  }
}
