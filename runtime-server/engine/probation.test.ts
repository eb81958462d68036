import { describe, expect, it } from 'vitest';
import { Probation } from './probation.ts';

describe('Probation', () => {
  it('lasts its period', () => {
    const p = new Probation(1000);
    p.add(['p/a', 'q/b'], 0);
    expect(p.has('p/a', 999)).toBe(true);
    expect(p.list(999)).toEqual(['p/a', 'q/b']);
    expect(p.has('p/a', 1000)).toBe(false);
    expect(p.size).toBe(1);
    expect(p.list(1000)).toEqual([]);
  });

  it("covers every app of a suspect's project, one it made since included", () => {
    const p = new Probation(1000);
    p.add(['p/a'], 0);
    expect(p.covers('p', 500)).toBe(true);
    expect(p.covers('q', 500)).toBe(false);
    expect(p.covers('p', 1000)).toBe(false);
  });

  it('lets one project at a time send requests to a shard', () => {
    const p = new Probation(60_000);
    p.add(['p/a', 'q/b'], 0);
    const busy = new Set<string>();
    const isBusy = (project: string) => busy.has(project);
    expect(p.admit(0, 'p', isBusy, 1_000)).toBe(true);
    busy.add('p');
    expect(p.admit(0, 'p', isBusy, 1_001)).toBe(true); // its own requests go on, any app of it
    expect(p.admit(0, 'q', isBusy, 1_002)).toBe(false); // the other waits
    expect(p.admit(1, 'q', isBusy, 1_002)).toBe(true); // another shard has its own turns
  });

  it('makes the holder give way once its requests are done when another project waits, and hands the turn to it', () => {
    const p = new Probation(60_000);
    p.add(['p/a', 'q/b'], 0);
    const busy = new Set(['p']);
    const isBusy = (project: string) => busy.has(project);
    expect(p.admit(0, 'p', isBusy, 1_000)).toBe(true);
    const handovers: string[] = [];
    p.onHandover(0, () => handovers.push(p.holder(0, 1_000)!));
    expect(p.admit(0, 'q', isBusy, 1_200)).toBe(false);
    p.waiting(0, 'q', 1); // its request is held
    expect(p.admit(0, 'p', isBusy, 1_300)).toBe(false); // no new requests while another waits
    p.waiting(0, 'p', 1);
    busy.delete('p');
    // Done: the turn goes to the project that waited, not back to the one that held it.
    expect(p.admit(0, 'p', isBusy, 1_400)).toBe(false);
    expect(p.holder(0, 1_400)).toBe('q');
    expect(handovers).toEqual(['q']);
    expect(p.admit(0, 'p', isBusy, 1_401)).toBe(false); // q's reservation: p cannot take it back
    expect(p.admit(0, 'q', isBusy, 1_402)).toBe(true);
    p.waiting(0, 'q', -1);
    busy.add('q');
    expect(p.admit(0, 'p', isBusy, 1_600)).toBe(false);
    busy.delete('q');
    expect(p.admit(0, 'q', isBusy, 1_700)).toBe(false); // q is done and p waits: p's turn
    expect(p.holder(0, 1_700)).toBe('p');
  });

  it('forgets a waiting request that was let go: the holder keeps its turn and is not made to give way', () => {
    const p = new Probation(60_000);
    p.add(['p/a', 'q/b'], 0);
    expect(p.admit(0, 'p', () => true, 1_000)).toBe(true);
    p.waiting(0, 'q', 1);
    expect(p.admit(0, 'p', () => true, 1_200)).toBe(false);
    p.waiting(0, 'q', -1); // its client left
    expect(p.admit(0, 'p', () => true, 1_300)).toBe(true);
  });

  it("names the project holding a shard's turn while its probation lasts", () => {
    const p = new Probation(1000);
    p.add(['p/a', 'q/b'], 0);
    expect(p.holder(0, 10)).toBeUndefined();
    expect(p.admit(0, 'p', () => true, 10)).toBe(true);
    expect(p.holder(0, 10)).toBe('p');
    expect(p.holder(1, 10)).toBeUndefined();
    expect(p.holder(0, 1000)).toBeUndefined();
  });

  it('takes the turn from a holder whose probation ended', () => {
    const p = new Probation(1000);
    p.add(['p/a'], 0);
    p.add(['q/b'], 500);
    expect(p.admit(0, 'p', () => true, 100)).toBe(true);
    expect(p.admit(0, 'q', () => true, 900)).toBe(false);
    expect(p.admit(0, 'q', () => true, 1001)).toBe(true);
  });
});
