import { describe, expect, it } from 'vitest';
import { COMMITS_MAX, CommitsQuery, SKIP_MAX } from './commits.ts';

// The ranges are patterns in the schema (query values are text): they must say what the constants say.
describe('the commits query', () => {
  const accepts = (field: 'n' | 'skip', value: number | string) => new RegExp((CommitsQuery.properties[field] as { pattern?: string }).pattern ?? '').test(String(value));

  it('takes n from 1 to COMMITS_MAX and nothing else', () => {
    for (let n = 1; n <= COMMITS_MAX; n++) expect(accepts('n', n), String(n)).toBe(true);
    for (const n of [0, COMMITS_MAX + 1, 999, '01', '-1', '1.5', '']) expect(accepts('n', n), String(n)).toBe(false);
  });

  it('takes skip from 0 to SKIP_MAX and nothing else', () => {
    for (const skip of [0, 1, 9, 10, 99_999, SKIP_MAX]) expect(accepts('skip', skip), String(skip)).toBe(true);
    for (const skip of [SKIP_MAX + 1, 199_999, '00', '-1', '']) expect(accepts('skip', skip), String(skip)).toBe(false);
  });
});
