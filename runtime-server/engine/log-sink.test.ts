import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { AppLogs, LOG_LIMITS } from '../../src/runtime-contract/app-logs.ts';
import { ingestLogBatch } from './log-sink.ts';

describe('ingestLogBatch', () => {
  it('keeps an entry within its characters: exceptions first, then lines until one does not fit, the rest counted', () => {
    const logs = new AppLogs();
    const lines = Array.from({ length: 30 }, (_, i) => ({ level: 'log', message: `${i}`.padEnd(250_000, 'x'), time: 1 }));
    ingestLogBatch(JSON.stringify([{ app: 'p/a', buildId: 'b', outcome: 'ok', logs: lines, exceptions: [{ name: 'Error', message: 'boom', stack: 'at x', time: 1 }] }]), logs);
    const [entry] = logs.recent('p/a');
    const kept = entry!.logs.slice(0, -1);
    // Each line cut to messageChars; as many as the entry's characters allow.
    expect(kept.every((l) => l.message.length === LOG_LIMITS.messageChars)).toBe(true);
    expect(kept).toHaveLength(Math.floor((LOG_LIMITS.entryChars - 'Error'.length - 'boom'.length - 'at x'.length) / LOG_LIMITS.messageChars));
    expect(entry!.logs.at(-1)).toMatchObject({ level: 'warn', message: `(cw: ${30 - kept.length} more lines or exceptions not kept: an entry keeps ${LOG_LIMITS.entryChars} characters)` });
    expect(entry!.exceptions).toEqual([expect.objectContaining({ name: 'Error', message: 'boom' })]);
  });

  it("counts what the tail worker cut already, and tells an app's followers of the entries it dropped", () => {
    const logs = new AppLogs();
    const told: number[] = [];
    const other: number[] = [];
    logs.subscribe(
      'p/a',
      () => {},
      (count) => told.push(count),
    );
    logs.subscribe(
      'p/b',
      () => {},
      (count) => other.push(count),
    );
    ingestLogBatch(
      JSON.stringify([
        { app: 'p/a', buildId: 'b', outcome: 'ok', logs: [{ level: 'log', message: 'kept', time: 1 }], exceptions: [], cut: 7 },
        { app: 'p/a', dropped: 12 },
        { app: 'BAD KEY', dropped: 3 },
      ]),
      logs,
    );
    const [entry] = logs.recent('p/a');
    expect(entry!.logs.map((l) => l.message)).toEqual(['kept', `(cw: 7 more lines or exceptions not kept: an entry keeps ${LOG_LIMITS.entryChars} characters)`]);
    // A count is no entry of its own.
    expect(logs.recent('p/a')).toHaveLength(1);
    expect(told).toEqual([12]);
    expect(other).toEqual([]);
  });

  it('has the tail worker cut entries by the same limits (dispatcher.js keeps a copy: it runs in workerd)', () => {
    const source = readFileSync(new URL('./dispatcher/dispatcher.js', import.meta.url), 'utf8');
    const copy = /const LOG_LIMITS = \{([^}]*)\};/.exec(source)?.[1] ?? '';
    // `name: 8_192` pairs, read without evaluating the file's text.
    const pairs = [...copy.matchAll(/(\w+):\s*([\d_]+)/g)].map(([, name, value]) => [name, Number(value?.replaceAll('_', ''))]);
    expect(Object.fromEntries(pairs)).toEqual(LOG_LIMITS);
  });
});
