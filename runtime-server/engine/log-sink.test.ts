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
});
