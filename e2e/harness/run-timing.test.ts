import { describe, expect, it } from 'vitest';
import { cpuTicks, runTiming } from './run-timing.ts';

describe('runTiming', () => {
  it('says how long the run took to start its first file, how many ran at once, and the tail with a worker idle', () => {
    // Two workers from t=10 to t=70, then one file alone until t=100.
    const spans = [
      { start: 10, end: 40 },
      { start: 10, end: 70 },
      { start: 40, end: 100 },
    ];
    expect(runTiming(spans, 0, 2)).toEqual({ beforeFirstMs: 10, averageRunning: 150 / 90, tailMs: 30 });
  });

  it('counts a run that never filled its workers as all tail', () => {
    expect(runTiming([{ start: 5, end: 25 }], 0, 2)).toEqual({ beforeFirstMs: 5, averageRunning: 1, tailMs: 20 });
    expect(runTiming([], 0, 2)).toBeUndefined();
  });
});

describe('cpuTicks', () => {
  it("reads the machine's busy and total ticks from /proc/stat's first line, iowait as idle", () => {
    expect(cpuTicks(() => 'cpu  100 5 50 800 20 3 2 0 0 0\ncpu0 1 1 1 1 1 1 1 1 1 1\n')).toEqual({ busy: 160, total: 980 });
    expect(
      cpuTicks(() => {
        throw new Error('no /proc');
      }),
    ).toBeUndefined();
  });
});
