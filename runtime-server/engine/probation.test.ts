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
    p.add(['p/a', 'q/b']);
    const busy = new Set<string>();
    const isBusy = (project: string) => busy.has(project);
    expect(p.admit(0, 'p', isBusy)).toBe(true);
    busy.add('p');
    expect(p.admit(0, 'p', isBusy)).toBe(true); // its own requests go on, any app of it
    expect(p.admit(0, 'q', isBusy)).toBe(false); // the other waits
    expect(p.admit(1, 'q', isBusy)).toBe(true); // another shard has its own turns
  });

  it('makes the holder give way once its requests are done when another project waits', () => {
    const p = new Probation(60_000);
    p.add(['p/a', 'q/b']);
    const busy = new Set(['p']);
    const isBusy = (project: string) => busy.has(project);
    expect(p.admit(0, 'p', isBusy)).toBe(true);
    expect(p.admit(0, 'q', isBusy)).toBe(false);
    expect(p.admit(0, 'p', isBusy)).toBe(false); // no new requests while another waits
    busy.delete('p');
    expect(p.admit(0, 'p', isBusy)).toBe(false); // done: it hands the turn on
    expect(p.admit(0, 'q', isBusy)).toBe(true);
    busy.add('q');
    expect(p.admit(0, 'p', isBusy)).toBe(false);
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
