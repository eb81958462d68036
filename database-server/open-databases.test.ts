import { describe, expect, it } from 'vitest';
import { OpenDatabases, trackOpenDatabases } from './open-databases.ts';
import type { DatabaseEngine, PipelineOutcome } from './shards/engine-port.ts';

/** An engine that does nothing but let the tracker see its calls, and its restart listener be called. */
function quietEngine(): DatabaseEngine & { restart(affected: (tenant: string) => boolean): void } {
  let listener: ((affected: (tenant: string) => boolean) => void) | undefined;
  const outcome: PipelineOutcome = { results: [], autocommit: true, closed: false, counts: { rowsRead: 0, rowsWritten: 0 } };
  return {
    databasePath: (tenant) => `/data/${tenant}.db`,
    open: async () => {},
    run: async () => outcome,
    closeStream: async () => {},
    checkpoint: async () => {},
    closeTenant: async () => {},
    onRestart: (l) => void (listener = l),
    close: async () => {},
    restart: (affected) => listener?.(affected),
  };
}

describe('OpenDatabases', () => {
  it('answers the databases idle since a time, least recently used first; a use moves one to the end', () => {
    let clock = 0;
    const open = new OpenDatabases({ now: () => clock });
    for (const tenant of ['a', 'b', 'c']) {
      open.used(tenant);
      clock += 10;
    }
    open.used('a'); // at 30
    expect(open.idleSince(15)).toEqual(['b']);
    expect(open.idleSince(30)).toEqual(['b', 'c', 'a']);
    open.closed('b');
    expect(open.idleSince(30)).toEqual(['c', 'a']);
    expect(open.count).toBe(2);
  });

  it('answers, in each shard over the bound, the least recently used past it among those idle long enough', () => {
    let clock = 0;
    const shardOf = (tenant: string) => (tenant.startsWith('x') ? 1 : 0);
    const open = new OpenDatabases({ now: () => clock, shardOf });
    for (const tenant of ['a1', 'x1', 'a2', 'a3', 'x2', 'a4']) {
      open.used(tenant);
      clock += 10;
    }
    // Shard 0 holds a1..a4 (used at 0, 20, 30, 50), shard 1 x1, x2: a bound of 2 closes a1 and a2 only.
    expect(open.overBound(2, 100)).toEqual(['a1', 'a2']);
    // Used too recently to be closed for the bound: a2 (at 20) is not idle since 15.
    expect(open.overBound(2, 15)).toEqual(['a1']);
    open.used('a1');
    expect(open.overBound(2, 100)).toEqual(['a2', 'a3']);
    expect(open.overBound(4, 100)).toEqual([]);
  });

  it("closes over the bound from the project with the most open first, however recently it used them: one project's many cannot push another's out", () => {
    let clock = 0;
    const open = new OpenDatabases({ now: () => clock, projectOf: (tenant) => tenant.split('.')[0]! });
    // q's two databases are the least recently used; p opened six after them and keeps using them.
    for (const tenant of ['q.1', 'q.2', 'p.1', 'p.2', 'p.3', 'p.4', 'p.5', 'p.6']) {
      open.used(tenant);
      clock += 10;
    }
    // Over a bound of 4 by 4: all of them p's, its least recently used first.
    expect(open.overBound(4, 1000)).toEqual(['p.1', 'p.2', 'p.3', 'p.4']);
    // Over a bound of 2 by 6: p's down to q's two, then one each (at a tie, the project with the older one first).
    expect(open.overBound(2, 1000)).toEqual(['p.1', 'p.2', 'p.3', 'p.4', 'q.1', 'p.5']);
  });

  it('is told of every open, run, checkpoint and close through the engine, and of connections a restart lost', async () => {
    let clock = 0;
    const open = new OpenDatabases({ now: () => clock });
    const inner = quietEngine();
    const engine = trackOpenDatabases(inner, open);
    const lost: string[] = [];
    engine.onRestart((affected) => lost.push(...['a', 'b', 'c'].filter(affected)));
    await engine.open('a', {} as never);
    clock = 5;
    await engine.run({ tenant: 'b', stream: 's', mode: 'read-write', requests: [] });
    clock = 7;
    await engine.checkpoint('c');
    expect(open.idleSince(7)).toEqual(['a', 'b', 'c']);
    await engine.closeTenant('a');
    expect(open.isOpen('a')).toBe(false);
    inner.restart((tenant) => tenant === 'b');
    expect(open.isOpen('b')).toBe(false);
    expect(open.isOpen('c')).toBe(true);
    expect(lost).toEqual(['b']);
  });
});
