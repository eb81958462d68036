import { describe, expect, it } from 'vitest';
import { collectPages, type PageQuery } from './pages.ts';

// A list of `n` numbers served as the API serves one: pages of at most `limit`, `next` the last item's cursor.
const serve = (n: number, asked: PageQuery[]) => async (query: PageQuery) => {
  asked.push(query);
  const start = query.cursor ? Number(query.cursor) + 1 : 0;
  const items = Array.from({ length: Math.max(0, Math.min(query.limit, n - start)) }, (_, i) => start + i);
  return { items, next: start + items.length < n ? String(start + items.length - 1) : null };
};

describe('collectPages', () => {
  it('follows every page to the end, a thousand at a time', async () => {
    const asked: PageQuery[] = [];
    const { items, next } = await collectPages(serve(2500, asked));
    expect(items).toEqual(Array.from({ length: 2500 }, (_, i) => i));
    expect(next).toBeNull();
    expect(asked.map((q) => q.limit)).toEqual([1000, 1000, 1000]);
  });

  it('stops after `limit` items and answers where the list continues', async () => {
    const asked: PageQuery[] = [];
    const { items, next } = await collectPages(serve(50, asked), 20);
    expect(items).toHaveLength(20);
    expect(next).toBe('19');
    expect(asked).toEqual([{ limit: 20 }]);
  });
});
