import { describe, expect, it } from 'vitest';
import { byteRange } from './byte-range.ts';

describe('byteRange', () => {
  it.each([
    [undefined, 100, { kind: 'full' }],
    ['bytes=0-9', 100, { kind: 'partial', start: 0, end: 9 }],
    ['bytes=90-', 100, { kind: 'partial', start: 90, end: 99 }],
    ['bytes=90-1000', 100, { kind: 'partial', start: 90, end: 99 }],
    ['bytes=-10', 100, { kind: 'partial', start: 90, end: 99 }],
    ['bytes=-1000', 100, { kind: 'partial', start: 0, end: 99 }],
    ['bytes=100-', 100, { kind: 'unsatisfiable' }],
    ['bytes=-0', 100, { kind: 'unsatisfiable' }],
    ['bytes=0-0', 0, { kind: 'unsatisfiable' }],
    ['bytes=0-1,5-6', 100, { kind: 'full' }], // several ranges: the whole body
    ['bytes=9-0', 100, { kind: 'full' }], // malformed: ignored
    ['items=0-1', 100, { kind: 'full' }],
    ['bytes=-', 100, { kind: 'full' }],
  ] as const)('%s over %i bytes', (header, size, answer) => {
    expect(byteRange(header, size)).toEqual(answer);
  });
});
