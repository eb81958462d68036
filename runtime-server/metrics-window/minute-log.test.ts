import { describe, expect, it } from 'vitest';
import { MinuteLog } from './minute-log.ts';
import { FIELDS } from './minute-record.ts';

/** A minute of `n` 2xx answers, all in the first latency bucket. */
function ok(n: number): Float64Array {
  const v = new Float64Array(FIELDS);
  v[1] = n;
  v[7] = n;
  return v;
}

function minutes(log: MinuteLog, from = 0): Array<[number, number]> {
  const out: Array<[number, number]> = [];
  log.read(from, (minute, v) => out.push([minute, v[1] ?? 0]));
  return out;
}

describe('MinuteLog', () => {
  it('keeps minutes in order with the gaps between them, and reads from a minute on', () => {
    const log = new MinuteLog();
    for (const [minute, n] of [
      [1000, 5],
      [1001, 6],
      [1010, 7],
      [2000, 8],
    ] as const)
      log.append(minute, ok(n), 0);
    expect(minutes(log)).toEqual([
      [1000, 5],
      [1001, 6],
      [1010, 7],
      [2000, 8],
    ]);
    expect(minutes(log, 1005)).toEqual([
      [1010, 7],
      [2000, 8],
    ]);
    expect(log.lastMinute).toBe(2000);
  });

  it('drops minutes older than the window from the front, keeping the later ones at their minutes', () => {
    const log = new MinuteLog();
    for (let m = 0; m < 3000; m += 3) log.append(m, ok(m + 1), m - 1455);
    const kept = minutes(log);
    expect(kept[0]).toEqual([1542, 1543]); // the last append (2997) keeps its 1455 minutes before
    expect(kept.at(-1)).toEqual([2997, 2998]);
    expect(kept.every(([m, n], i) => n === m + 1 && (i === 0 || m - kept[i - 1]![0] === 3))).toBe(true);
    log.dropBefore(5000);
    expect(log.empty).toBe(true);
    log.append(6000, ok(1), 0);
    expect(minutes(log)).toEqual([[6000, 1]]);
  });

  it('costs nothing with no answers, and stays near its records over a day of busy minutes', () => {
    const log = new MinuteLog();
    expect(log.capacity).toBe(0);
    for (let m = 0; m < 3 * 1440; m++) log.append(m, ok(200), m - 1440);
    // 1440 records of 4 bytes (flags, a 2-byte count, the range byte), the buffer's slack, two decoded records.
    expect(log.capacity).toBeGreaterThanOrEqual(1440 * 4);
    expect(log.capacity).toBeLessThan(1440 * 4 * 1.1 + 512 + 320);
    log.dropBefore(10 * 1440);
    expect(log.capacity).toBe(0);
  });
});
