// The API's long lists answer a page at a time (`limit`, and `cursor` from the previous page's `next`); the
// console shows them whole, as it did before they were paginated, fetching the pages one after another.

/** Items per request: the API's largest page, so a list of up to a thousand is still one request. */
const PAGE = 1000;

type Page<K extends string, I> = { [key in K]: I[] } & { next: string | null };

/** Every page of the list under `key`, merged into one answer of the same shape (its `next` null). */
export async function allPages<K extends string, I>(key: K, fetchPage: (query: { limit: number; cursor?: string }) => Promise<Page<K, I>>): Promise<Page<K, I>> {
  const items: I[] = [];
  let cursor: string | undefined;
  for (;;) {
    const page = await fetchPage({ limit: PAGE, ...(cursor ? { cursor } : {}) });
    items.push(...page[key]);
    if (!page.next) return { [key]: items, next: null } as Page<K, I>;
    cursor = page.next;
  }
}
