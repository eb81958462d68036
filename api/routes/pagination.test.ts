import { describe, expect, it } from 'vitest';
import { pageOf } from './pagination.ts';

const key = (name: string) => [name];

describe('pageOf', () => {
  it('neither repeats nor skips an item that stays, whatever is added or removed between pages', () => {
    const first = pageOf(['c', 'a', 'e', 'b'], key, { limit: 2 });
    expect(first.items).toEqual(['a', 'b']);
    // Meanwhile `a` and `b` were deleted and `aa` and `d` made: the next page starts after `b`, wherever it was.
    const second = pageOf(['aa', 'c', 'd', 'e'], key, { limit: 2, cursor: first.next! });
    expect(second).toEqual({ items: ['c', 'd'], next: expect.any(String) });
    expect(pageOf(['aa', 'c', 'd', 'e'], key, { limit: 2, cursor: second.next! })).toEqual({ items: ['e'], next: null });
  });

  it('orders by every field of the key, and answers null when the last page is exactly full', () => {
    const records = [
      { fqdn: 'a.example', type: 'TXT' },
      { fqdn: 'a.example', type: 'A' },
    ];
    expect(pageOf(records, (r) => [r.fqdn, r.type], { limit: 2 })).toEqual({ items: [records[1], records[0]], next: null });
  });

  it('reads a cursor it did not answer as the key it spells, and continues after it', () => {
    expect(pageOf(['a', 'm', 'z'], key, { cursor: Buffer.from('n').toString('base64url') })).toEqual({ items: ['z'], next: null });
    expect(pageOf(['a'], key, { cursor: '0' })).toEqual({ items: ['a'], next: null });
  });
});
