import { describe, expect, it } from 'vitest';
import { MemoryObjectStore } from '../../object-store/memory-object-store.ts';
import { BuildLogWriter, type LogEnd } from './build-log.ts';
import { followBuildLog, readWholeBuildLog, type LogEvent } from './follow-build-log.ts';

async function collect(events: AsyncGenerator<LogEvent>): Promise<LogEvent[]> {
  const out: LogEvent[] = [];
  for await (const event of events) out.push(event);
  return out;
}

describe('readWholeBuildLog', () => {
  it('reads past one page of chunks', async () => {
    const store = new MemoryObjectStore();
    const log = new BuildLogWriter(store, 'p', 'b');
    for (let i = 0; i < 70; i++) {
      log.write(`line ${i}\n`);
      await log.flush();
    }
    const whole = await readWholeBuildLog(store, 'p', 'b');
    expect(whole.text.split('\n').length).toBe(71);
    expect(whole.end).toBeUndefined();
    await log.finish({ state: 'Succeeded' });
    expect((await readWholeBuildLog(store, 'p', 'b')).end).toEqual({ state: 'Succeeded' });
  });
});

describe('followBuildLog', () => {
  it('gives the text as it is written, then the end marker', async () => {
    const store = new MemoryObjectStore();
    const log = new BuildLogWriter(store, 'p', 'b');
    log.write('one\n');
    await log.flush();
    const events = followBuildLog(store, 'p', 'b', { signal: new AbortController().signal, intervalMs: 10, ended: () => undefined });
    expect((await events.next()).value).toEqual({ type: 'log', text: 'one\n' });
    const next = events.next();
    log.write('two\n');
    await log.flush();
    expect((await next).value).toEqual({ type: 'log', text: 'two\n' });
    await log.finish({ state: 'Failed', message: 'exit 1' });
    expect(await collect(events)).toEqual([{ type: 'end', end: { state: 'Failed', message: 'exit 1' } }]);
  });

  it('ends with the build’s own state when no marker comes (a build cancelled before it ran)', async () => {
    const store = new MemoryObjectStore();
    let over: LogEnd | undefined;
    const events = followBuildLog(store, 'p', 'b', { signal: new AbortController().signal, intervalMs: 5, graceReads: 2, ended: () => over });
    const all = collect(events);
    over = { state: 'Cancelled', message: 'Superseded by a newer push.' };
    expect(await all).toEqual([{ type: 'end', end: { state: 'Cancelled', message: 'Superseded by a newer push.' } }]);
  });

  it('stops when the reader goes away', async () => {
    const abort = new AbortController();
    const all = collect(followBuildLog(new MemoryObjectStore(), 'p', 'b', { signal: abort.signal, intervalMs: 10_000, ended: () => undefined }));
    abort.abort();
    expect(await all).toEqual([]);
  });
});
