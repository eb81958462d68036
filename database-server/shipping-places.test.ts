import { describe, expect, it } from 'vitest';
import { mostAtOnce, shareOut } from './shipping-places.ts';

/** Tenants named `<project>-<n>`. */
const projectOf = (tenant: string) => tenant.split('-')[0] ?? tenant;
const tenants = (project: string, count: number) => Array.from({ length: count }, (_, i) => `${project}-${i}`);

describe('shareOut', () => {
  it('gives a project at most half the places while another project waits, and the rest to it when none does', () => {
    expect(shareOut([...tenants('a', 6), 'b-0'], projectOf, new Map(), 4)).toEqual(['a-0', 'a-1', 'a-2', 'b-0']);
    expect(shareOut(tenants('a', 6), projectOf, new Map(), 4)).toEqual(tenants('a', 4));
  });

  it("lends a project holding none a place beyond them while another holds more than its share, up to a share more in all (one project's long uploads)", () => {
    const held = new Map([['a', 4]]);
    expect(shareOut([...tenants('a', 2), 'b-0', 'c-0', 'd-0'], projectOf, held, 4)).toEqual(['b-0', 'c-0']);
    // A project holding one waits for a place.
    expect(shareOut(['b-1'], projectOf, new Map([...held, ['b', 1]]), 4)).toEqual([]);
  });

  it('lends nothing while the places are shared fairly: the next turn comes soon', () => {
    expect(
      shareOut(
        ['c-0'],
        projectOf,
        new Map([
          ['a', 2],
          ['b', 2],
        ]),
        4,
      ),
    ).toEqual([]);
    expect(shareOut(['c-0'], projectOf, new Map([['a', 1]]), 4)).toEqual(['c-0']);
  });

  it('runs at most half as many again as the places', () => {
    expect(mostAtOnce(16)).toBe(24);
    expect(mostAtOnce(1)).toBe(2);
  });
});
