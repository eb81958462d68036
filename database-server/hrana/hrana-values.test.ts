import { describe, expect, it } from 'vitest';
import { fromHrana, toHrana } from './hrana-values.ts';
import type { HranaValue } from './hrana-types.ts';

describe('Hrana values', () => {
  it.each<[HranaValue, unknown]>([
    [{ type: 'null' }, null],
    [{ type: 'integer', value: '9223372036854775807' }, 9223372036854775807n],
    [{ type: 'integer', value: '-9223372036854775808' }, -9223372036854775808n],
    [{ type: 'float', value: 1.5 }, 1.5],
    [{ type: 'text', value: 'é' }, 'é'],
  ])('decodes %j', (wire, value) => {
    expect(fromHrana(wire)).toEqual(value);
  });

  it('decodes a blob from base64', () => {
    expect(new Uint8Array(fromHrana({ type: 'blob', base64: 'AAH/' }) as Uint8Array)).toEqual(new Uint8Array([0, 1, 255]));
  });

  it.each([
    { type: 'integer', value: '9223372036854775808' },
    { type: 'integer', value: '0x10' },
    { type: 'integer', value: 12 },
    { type: 'float', value: '1.5' },
    { type: 'text' },
    { type: 'blob', value: 'AA==' },
    { type: 'date' },
    null,
  ])('refuses %j as a protocol error', (wire) => {
    expect(() => fromHrana(wire as HranaValue)).toThrow(expect.objectContaining({ code: 'HRANA_PROTO_ERROR' }));
  });

  it('encodes integers as decimal strings, numbers as floats and bytes as base64', () => {
    expect(toHrana(null)).toEqual({ type: 'null' });
    expect(toHrana(-(2n ** 63n))).toEqual({ type: 'integer', value: '-9223372036854775808' });
    expect(toHrana(2)).toEqual({ type: 'float', value: 2 });
    expect(toHrana('x')).toEqual({ type: 'text', value: 'x' });
    expect(toHrana(Buffer.from([0, 1, 255]).subarray(1))).toEqual({ type: 'blob', base64: 'Af8=' });
  });
});
