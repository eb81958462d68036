import { describe, expect, it } from 'vitest';
import { statusChanged } from './status-changed.ts';

describe('statusChanged', () => {
  it.each([
    ['identical objects', { a: 1, b: [1, { c: 'x' }] }, { a: 1, b: [1, { c: 'x' }] }, false],
    ['different key order', { a: 1, b: 2 }, { b: 2, a: 1 }, false],
    ['undefined equals missing', { a: 1, b: undefined }, { a: 1 }, false],
    ['both undefined', undefined, undefined, false],
    ['a Date and its JSON string', { t: new Date('2025-01-01T00:00:00Z') }, { t: '2025-01-01T00:00:00.000Z' }, false],
    ['changed scalar', { a: 1 }, { a: 2 }, true],
    ['added key', { a: 1 }, { a: 1, b: 0 }, true],
    ['removed key', { a: 1, b: null }, { a: 1 }, true],
    ['array order matters', { a: [1, 2] }, { a: [2, 1] }, true],
    ['array length', { a: [1] }, { a: [1, 1] }, true],
    ['array vs object', { a: [] }, { a: {} }, true],
    ['nested change', { c: [{ type: 'Ready', status: 'True' }] }, { c: [{ type: 'Ready', status: 'False' }] }, true],
    ['missing vs empty status', undefined, {}, true],
    ['number vs string', { a: 1 }, { a: '1' }, true],
  ])('%s', (_, previous, next, changed) => {
    expect(statusChanged(previous, next)).toBe(changed);
    expect(statusChanged(next, previous)).toBe(changed);
  });
});
