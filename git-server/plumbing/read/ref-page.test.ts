import { describe, expect, it } from 'vitest';
import { pageRefs } from './ref-page.ts';

const oid = (c: string) => c.repeat(40);
const refs = new Map([
  ['refs/heads/main', oid('1')],
  ['refs/heads/feature/login', oid('2')],
  ['refs/heads/feature/Logout', oid('3')],
  ['refs/heads/features', oid('4')],
  ['refs/heads/feature', oid('5')],
  ['refs/tags/v1', oid('6')],
  ['refs/notes/commits', oid('7')],
  ['refs/heads/\u{1f600}', oid('8')],
  ['refs/heads/\uffff', oid('9')],
]);

const names = (page: { refs: { name: string }[] }) => page.refs.map((r) => r.name);

describe('pageRefs', () => {
  it('lists one kind by short name in byte order, shas included', () => {
    expect(pageRefs(refs, 'tags', { n: 100 })).toEqual({ refs: [{ name: 'v1', sha: oid('6') }], more: false });
    // U+FFFF sorts before U+1F600 in UTF-8 byte order, though not in UTF-16 code units.
    expect(names(pageRefs(refs, 'branches', { n: 100 }))).toEqual(['feature', 'feature/Logout', 'feature/login', 'features', 'main', '\uffff', '\u{1f600}']);
  });

  it('matches a plain string prefix, whole segments when it ends with a slash', () => {
    expect(names(pageRefs(refs, 'branches', { prefix: 'feat', n: 100 }))).toEqual(['feature', 'feature/Logout', 'feature/login', 'features']);
    expect(names(pageRefs(refs, 'branches', { prefix: 'feature', n: 100 }))).toEqual(['feature', 'feature/Logout', 'feature/login', 'features']);
    expect(names(pageRefs(refs, 'branches', { prefix: 'feature/', n: 100 }))).toEqual(['feature/Logout', 'feature/login']);
    expect(names(pageRefs(refs, 'branches', { prefix: 'features', n: 100 }))).toEqual(['features']);
    expect(names(pageRefs(refs, 'branches', { prefix: 'nope', n: 100 }))).toEqual([]);
  });

  it('finds dotted tags by a prefix that ends mid-segment', () => {
    const tags = new Map([
      ['refs/tags/v1.2.3', oid('1')],
      ['refs/tags/v1.10.0', oid('2')],
      ['refs/tags/v10.0.0', oid('3')],
      ['refs/tags/v2.0.0', oid('4')],
    ]);
    expect(names(pageRefs(tags, 'tags', { prefix: 'v1.', n: 100 }))).toEqual(['v1.10.0', 'v1.2.3']);
  });

  it('filters by a case-insensitive substring', () => {
    expect(names(pageRefs(refs, 'branches', { q: 'LOG', n: 100 }))).toEqual(['feature/Logout', 'feature/login']);
  });

  it('pages with an exclusive cursor and says whether more follow', () => {
    const first = pageRefs(refs, 'branches', { n: 2 });
    expect(first).toEqual({
      refs: [
        { name: 'feature', sha: oid('5') },
        { name: 'feature/Logout', sha: oid('3') },
      ],
      more: true,
    });
    const second = pageRefs(refs, 'branches', { n: 2, after: 'feature/Logout' });
    expect(names(second)).toEqual(['feature/login', 'features']);
    expect(second.more).toBe(true);
    expect(pageRefs(refs, 'branches', { n: 3, after: 'features' })).toMatchObject({ more: false });
    expect(names(pageRefs(refs, 'branches', { n: 3, after: 'main' }))).toEqual(['\uffff', '\u{1f600}']);
    // A cursor that names no ref still cuts where it would sort.
    expect(names(pageRefs(refs, 'branches', { n: 1, after: 'featurez' }))).toEqual(['main']);
  });
});
