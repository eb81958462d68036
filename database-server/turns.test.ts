import { expect, it } from 'vitest';
import { Turns } from './turns.ts';

it('starts the next round with the first one the cap left over, and skips those not waiting', () => {
  const turns = new Turns();
  const items = ['a', 'b', 'c', 'd', 'e'];
  expect(turns.take(items, 2, () => true)).toEqual(['a', 'b']);
  // Nothing free: the one left over stays first.
  expect(turns.take(items, 0, (i) => i !== 'a' && i !== 'b')).toEqual([]);
  expect(turns.take(items, 2, (i) => i !== 'd')).toEqual(['c', 'e']);
  expect(turns.take(items, 2, () => true)).toEqual(['a', 'b']);
  expect(turns.take(items, 9, () => true)).toEqual(['c', 'd', 'e', 'a', 'b']);
  expect(turns.take([], 2, () => true)).toEqual([]);
});
