import { describe, expect, it } from 'vitest';
import { isAddressOrRange } from './address-range.ts';

describe('isAddressOrRange', () => {
  it.each(['127.0.0.1', '10.0.0.0/8', '0.0.0.0/0', '::1', 'fd00::/8', '::/128'])('accepts %s', (value) => {
    expect(isAddressOrRange(value)).toBe(true);
  });

  it.each(['', 'localhost', '999.1.1.1', '10.0.0.0/33', 'fd00::/129', '10.0.0.0/8/8', '10.0.0.0/', '10.0.0.0/x'])('refuses %j', (value) => {
    expect(isAddressOrRange(value)).toBe(false);
  });
});
