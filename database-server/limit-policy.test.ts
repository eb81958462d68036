import { describe, expect, it } from 'vitest';
import { effectiveLimits, LimitOutOfRangeError, type LimitPolicy } from './limit-policy.ts';

const daily = { rowsReadPerDay: 1_000_000, rowsWrittenPerDay: 10_000 };
const policy: LimitPolicy = {
  defaults: { statementTimeoutMs: 5000, maxSizeBytes: 1024 ** 3, ...daily },
  maxima: { statementTimeoutMs: 30_000, maxSizeBytes: 10 * 1024 ** 3, rowsReadPerDay: 50_000_000, rowsWrittenPerDay: 500_000 },
};

describe('effectiveLimits', () => {
  it('takes the defaults for what a database does not ask', () => {
    expect(effectiveLimits(undefined, policy)).toEqual(policy.defaults);
    expect(effectiveLimits({ maxSizeBytes: 2 * 1024 ** 3 }, policy)).toEqual({ statementTimeoutMs: 5000, maxSizeBytes: 2 * 1024 ** 3, ...daily });
  });

  it('allows less than the default and up to the maximum', () => {
    expect(effectiveLimits({ statementTimeoutMs: 100, maxSizeBytes: 10 * 1024 ** 3, rowsReadPerDay: 50_000_000, rowsWrittenPerDay: 3 }, policy)).toEqual({
      statementTimeoutMs: 100,
      maxSizeBytes: 10 * 1024 ** 3,
      rowsReadPerDay: 50_000_000,
      rowsWrittenPerDay: 3,
    });
  });

  it('refuses more than the maximum, naming it', () => {
    expect(() => effectiveLimits({ maxSizeBytes: 11 * 1024 ** 3 }, policy)).toThrow(new LimitOutOfRangeError('The size quota may be at most 10 GiB on this installation (asked: 11 GiB)'));
    expect(() => effectiveLimits({ statementTimeoutMs: 60_000 }, policy)).toThrow(/at most 30 s/);
    expect(() => effectiveLimits({ rowsWrittenPerDay: 500_001 }, policy)).toThrow(
      new LimitOutOfRangeError('The quota of rows written per day may be at most 500,000 on this installation (asked: 500,001)'),
    );
    expect(() => effectiveLimits({ rowsReadPerDay: 60_000_000 }, policy)).toThrow(/rows read per day may be at most 50,000,000/);
  });
});
