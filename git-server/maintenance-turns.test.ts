import { describe, expect, it } from 'vitest';
import { PassCursor } from './maintenance-turns.ts';

const items = (...repos: string[]) => repos.map((repo) => ({ repo }));
const names = (list: readonly { repo: string }[]) => list.map((i) => i.repo);

describe('PassCursor', () => {
  it('orders a pass one repository per owner a round, owners and repositories by name (review-177 F6)', () => {
    const cursor = new PassCursor();
    expect(names(cursor.order(items('victor/site', '0mallory/b', '0mallory/a', '0mallory/c', 'ada/x', 'ada/y')))).toEqual(['0mallory/a', 'ada/x', 'victor/site', '0mallory/b', 'ada/y', '0mallory/c']);
  });

  it('starts the next pass after the owner served last, each owner after its repository served last', () => {
    const cursor = new PassCursor();
    const marked = items('0mallory/a', '0mallory/b', 'ada/x', 'victor/site');
    cursor.order(marked);
    cursor.served('0mallory/a');
    // The pass stopped after 0mallory/a: ada is next, and 0mallory's next repository is b.
    expect(names(cursor.order(marked))).toEqual(['ada/x', 'victor/site', '0mallory/b', '0mallory/a']);
    cursor.served('ada/x');
    cursor.served('victor/site');
    expect(names(cursor.order(marked))).toEqual(['0mallory/b', 'ada/x', 'victor/site', '0mallory/a']);
  });

  it('forgets owners no longer marked, and starts from the first owner when the last one served sorts last', () => {
    const cursor = new PassCursor();
    cursor.order(items('zed/a', 'ada/x'));
    cursor.served('zed/a');
    expect(names(cursor.order(items('ada/x', 'bob/y')))).toEqual(['ada/x', 'bob/y']);
    expect(names(cursor.order([]))).toEqual([]);
  });
});
