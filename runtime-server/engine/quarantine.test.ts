import { afterEach, describe, expect, it, vi } from 'vitest';
import { Quarantines } from './quarantine.ts';

afterEach(() => {
  vi.useRealTimers();
});

describe('Quarantines', () => {
  it('doubles the back-off with each offence, up to the maximum', () => {
    const q = new Quarantines({ initialMs: 1000, maxMs: 5000 });
    const lengths = [0, 1, 2, 3, 4].map((i) => {
      const { since, until } = q.impose('p/a', 'CPULimitExceeded', 10_000 * (i + 1));
      return until - since;
    });
    expect(lengths).toEqual([1000, 2000, 4000, 5000, 5000]);
    expect(q.get('p/a')).toMatchObject({ reason: 'CPULimitExceeded', offences: 5 });
    q.clear();
  });

  it('starts again from the first length after a quiet period', () => {
    const q = new Quarantines({ initialMs: 1000, maxMs: 60_000, forgetAfterMs: 100_000 });
    q.impose('p/a', 'CPULimitExceeded', 0);
    q.impose('p/a', 'MemoryLimitExceeded', 50_000);
    const third = q.impose('p/a', 'CPULimitExceeded', 200_000);
    expect(third).toMatchObject({ offences: 1, until: 201_000, reason: 'CPULimitExceeded' });
    q.clear();
  });

  it('lifts a quarantine when its time is up, and says so', () => {
    vi.useFakeTimers();
    const changes: string[] = [];
    const q = new Quarantines({ initialMs: 1000, maxMs: 60_000, onChange: (key) => changes.push(key) });
    q.impose('p/a', 'CPULimitExceeded');
    expect(q.size).toBe(1);
    vi.advanceTimersByTime(999);
    expect(q.get('p/a')).toBeDefined();
    vi.advanceTimersByTime(1);
    expect(q.get('p/a')).toBeUndefined();
    expect(q.size).toBe(0);
    expect(changes).toEqual(['p/a', 'p/a']);
  });

  it('says which quarantines are for CPU held over a window, counting their offences with the others', () => {
    const q = new Quarantines({ initialMs: 1000, maxMs: 60_000 });
    q.impose('p/a', 'CPULimitExceeded', 0);
    expect(q.impose('p/a', 'CPULimitExceeded', 10, true)).toMatchObject({ sustained: true, offences: 2 });
    expect(q.get('p/a')).toMatchObject({ sustained: true });
    expect(q.impose('p/a', 'CPULimitExceeded', 20).sustained).toBeUndefined();
    q.clear();
  });

  it('keeps apps apart, and forgets a removed app', () => {
    const q = new Quarantines({ initialMs: 1000, maxMs: 60_000 });
    q.impose('p/a', 'CPULimitExceeded', 0);
    q.impose('p/b', 'MemoryLimitExceeded', 0);
    expect([...q.list().keys()]).toEqual(['p/a', 'p/b']);
    q.forget('p/a');
    expect(q.get('p/a')).toBeUndefined();
    expect(q.impose('p/a', 'CPULimitExceeded', 1).offences).toBe(1);
    q.clear();
  });
});
