import { describe, expect, it } from 'vitest';
import { mostAtOnce, shareOut, ShippingTurns, type ProjectQueue } from './shipping-places.ts';

/** Tenants named `<project>-<n>`. */
const projectOf = (tenant: string) => tenant.split('-')[0] ?? tenant;
const names = (tenant: string) => ({ project: projectOf(tenant), tenant });
const tenants = (project: string, count: number) => Array.from({ length: count }, (_, i) => `${project}-${i}`);
/** Tenants by project, in the order given. */
const queues = (waiting: string[]): ProjectQueue<string>[] => [...new Set(waiting.map(projectOf))].map((project) => ({ project, waiting: waiting.filter((t) => projectOf(t) === project) }));

describe('shareOut', () => {
  it('gives a project at most its fair part while another project waits, and the rest to it when none does', () => {
    expect(shareOut(queues([...tenants('a', 6), 'b-0']), new Map(), 4)).toEqual(['a-0', 'b-0', 'a-1', 'a-2']);
    expect(shareOut(queues(tenants('a', 6)), new Map(), 4)).toEqual(tenants('a', 4));
  });

  it('gives the places one project at a time, projects holding none first', () => {
    expect(shareOut(queues([...tenants('a', 3), ...tenants('b', 3), 'c-0']), new Map([['a', 1]]), 6)).toEqual(['b-0', 'c-0', 'a-0', 'b-1', 'a-1']);
  });

  it("lends a project holding none a place beyond them while another holds more than its fair part, up to half the places more in all (one project's long uploads)", () => {
    const held = new Map([['a', 4]]);
    expect(shareOut(queues([...tenants('a', 2), 'b-0', 'c-0', 'd-0']), held, 4)).toEqual(['b-0', 'c-0']);
    // A project holding one waits for a place.
    expect(shareOut(queues(['b-1']), new Map([...held, ['b', 1]]), 4)).toEqual([]);
  });

  it('lends a third project a place while two hold half the places each (review-178 P2: it waited behind all their tenants)', () => {
    const held = new Map([
      ['p', 8],
      ['q', 8],
    ]);
    expect(shareOut(queues(['p-9', 'q-9', 'r-0']), held, 16)).toEqual(['r-0']);
  });

  it('lends nothing while the places are shared fairly: the next turn comes soon', () => {
    expect(
      shareOut(
        queues(['c-0']),
        new Map([
          ['a', 2],
          ['b', 2],
        ]),
        4,
      ),
    ).toEqual([]);
    expect(shareOut(queues(['c-0']), new Map([['a', 1]]), 4)).toEqual(['c-0']);
  });

  it('runs at most half as many again as the places', () => {
    expect(mostAtOnce(16)).toBe(24);
    expect(mostAtOnce(1)).toBe(2);
  });
});

/**
 * Rounds as the directory runs them (a round each flush interval): each tenant's upload lasts `uploadRounds(t)`
 * rounds, after which it has commits pending again at once. Answers the most rounds each tenant waited, due and not
 * started, and how many times it started.
 */
function simulate(order: string[], places: number, rounds: number, uploadRounds: (tenant: string) => number) {
  const turns = new ShippingTurns(places);
  const endsAt = new Map<string, number>();
  const dueSince = new Map(order.map((t) => [t, 0]));
  const longestWait = new Map(order.map((t) => [t, 0]));
  const started = new Map(order.map((t) => [t, 0]));
  let mostRunning = 0;
  for (let round = 0; round < rounds; round++) {
    for (const [t, end] of endsAt) {
      if (end > round) continue;
      endsAt.delete(t);
      dueSince.set(t, round);
    }
    const held = new Map<string, number>();
    for (const t of endsAt.keys()) held.set(projectOf(t), (held.get(projectOf(t)) ?? 0) + 1);
    const waiting = order.filter((t) => !endsAt.has(t));
    for (const t of turns.pick(waiting, held, names)) {
      endsAt.set(t, round + uploadRounds(t));
      started.set(t, (started.get(t) ?? 0) + 1);
      longestWait.set(t, Math.max(longestWait.get(t) ?? 0, round - (dueSince.get(t) ?? round)));
    }
    for (const t of waiting) if (!endsAt.has(t)) longestWait.set(t, Math.max(longestWait.get(t) ?? 0, round - (dueSince.get(t) ?? round)));
    mostRunning = Math.max(mostRunning, endsAt.size);
  }
  return { longestWait, started, mostRunning };
}

describe('ShippingTurns over many rounds', () => {
  it('serves every waiting tenant in turn while one project holds every place it took (review-178 P1: two of ten never shipped)', () => {
    // 'hog' has 8 tenants with uploads that never end and one more due; ten single-tenant projects write all the time.
    const hogs = tenants('hog', 8);
    for (const order of [
      [...hogs, 'hog-x', ...Array.from({ length: 10 }, (_, i) => `t${i}-0`)],
      [...Array.from({ length: 10 }, (_, i) => `t${i}-0`), 'hog-x', ...hogs],
    ]) {
      const { longestWait, started } = simulate(order, 16, 50, (t) => (hogs.includes(t) ? 1_000 : 1));
      for (let i = 0; i < 10; i++) {
        expect(started.get(`t${i}-0`), `t${i}-0`).toBeGreaterThan(40);
        expect(longestWait.get(`t${i}-0`), `t${i}-0`).toBeLessThanOrEqual(1);
      }
    }
  });

  it('ships every tenant within a bound of rounds whatever the others do, and a project of one tenant at once', () => {
    // p and q: 20 tenants each with long uploads; r: one tenant, s: three; the rest single tenants writing all the time.
    const order = [...tenants('p', 20), ...tenants('q', 20), 'r-0', ...tenants('s', 3), ...Array.from({ length: 12 }, (_, i) => `u${i}-0`)];
    const upload = (t: string) => (t.startsWith('p-') || t.startsWith('q-') ? 30 : t.startsWith('s-') ? 5 : 1);
    const { longestWait, started, mostRunning } = simulate(order, 16, 3_000, upload);
    for (const t of order) expect(started.get(t), t).toBeGreaterThan(0);
    // Before, r waited behind p's and q's due tenants (181 places freed with 100 each), and the rotation left some never started.
    expect(longestWait.get('r-0')).toBeLessThanOrEqual(1);
    for (const t of tenants('s', 3)) expect(longestWait.get(t), t).toBeLessThanOrEqual(15);
    // A tenant of p waits its project's turn (a place of 16, as every project here) over its 20 tenants, each of whose
    // uploads takes 30 rounds.
    for (const t of [...tenants('p', 20), ...tenants('q', 20)]) expect(longestWait.get(t), t).toBeLessThanOrEqual(20 * 30);
    expect(mostRunning).toBeLessThanOrEqual(mostAtOnce(16));
  });
});
