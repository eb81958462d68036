import { describe, expect, it } from 'vitest';
import { MemoryObjectStore } from '../../object-store/memory-object-store.ts';
import { ForwardingObjectStore } from '../../object-store/testing/forwarding-object-store.ts';
import { BuildLogWriter, MAX_BUILD_LOG_BYTES, readBuildLog } from './build-log.ts';
import { readWholeBuildLog } from './follow-build-log.ts';
import { TRIMMED_LOG_BYTES, TRIMMED_LOG_NOTICE } from './log-retention.ts';
import { trimBuildLog } from './log-trim.ts';

/** A finished log of build `p/b` as big as a build may write, its lines numbered. */
async function fullLog(store: MemoryObjectStore): Promise<void> {
  const log = new BuildLogWriter(store, 'p', 'b');
  for (let i = 0; i < MAX_BUILD_LOG_BYTES / 1024 - 1; i++) log.write(`${String(i).padStart(6, '0')} ${'x'.repeat(1016)}\n`);
  log.write('build done\n');
  await log.finish({ state: 'Succeeded', message: 'stored as build 7' });
}

/** Bytes of the log's chunks in the bucket. */
async function storedBytes(store: MemoryObjectStore): Promise<number> {
  return (await store.list('source-builds/p/b/log/')).items.filter((i) => i.key.endsWith('.txt')).reduce((sum, i) => sum + i.size, 0);
}

describe('trimBuildLog', () => {
  it('keeps the end of a 4 MiB log, and a reader is told the start was removed', async () => {
    const store = new MemoryObjectStore();
    await fullLog(store);
    const whole = (await readWholeBuildLog(store, 'p', 'b')).text;
    expect(await trimBuildLog(store, 'p', 'b')).toBeGreaterThan(MAX_BUILD_LOG_BYTES - 2 * TRIMMED_LOG_BYTES);
    expect(await storedBytes(store)).toBeLessThanOrEqual(TRIMMED_LOG_BYTES);
    const read = await readWholeBuildLog(store, 'p', 'b');
    expect(read.text.startsWith(TRIMMED_LOG_NOTICE)).toBe(true);
    expect(whole.endsWith(read.text.slice(TRIMMED_LOG_NOTICE.length))).toBe(true);
    expect(read.text).toMatch(/build done\n$/);
    expect(read.end).toEqual({ state: 'Succeeded', message: 'stored as build 7' });
    expect(await trimBuildLog(store, 'p', 'b')).toBe(0); // trimmed already
  });

  it('leaves a log within the bound whole, and says nothing', async () => {
    const store = new MemoryObjectStore();
    const log = new BuildLogWriter(store, 'p', 'b');
    for (let i = 0; i < 3; i++) {
      log.write(`line ${i}\n`);
      await log.flush();
    }
    await log.finish({ state: 'Failed' });
    expect(await trimBuildLog(store, 'p', 'b')).toBe(0);
    expect((await readWholeBuildLog(store, 'p', 'b')).text).toBe('line 0\nline 1\nline 2\n');
  });

  it('cut short by a crash, has the reader told already; trimming again finishes it', async () => {
    const store = new MemoryObjectStore();
    await fullLog(store);
    let deletes = 0;
    const failing = new (class extends ForwardingObjectStore {
      override delete(key: string) {
        return ++deletes > 40 ? Promise.reject(new Error('the operator went away')) : super.delete(key);
      }
    })(store);
    await expect(trimBuildLog(failing, 'p', 'b')).rejects.toThrow('went away');
    expect((await readWholeBuildLog(store, 'p', 'b')).text.startsWith(TRIMMED_LOG_NOTICE)).toBe(true);
    await trimBuildLog(store, 'p', 'b');
    expect(await storedBytes(store)).toBeLessThanOrEqual(TRIMMED_LOG_BYTES);
  });

  it('tells a follower whose place was removed, and walks a log of more chunks than a listing page', async () => {
    const store = new MemoryObjectStore();
    const log = new BuildLogWriter(store, 'p', 'b');
    const line = `${'z'.repeat(99)}\n`;
    for (let i = 0; i < 1100; i++) {
      log.write(line);
      await log.flush();
    }
    await log.finish({ state: 'Succeeded' });
    const first = await readBuildLog(store, 'p', 'b', undefined, 2);
    expect(first.text).toBe(line.repeat(2));
    await trimBuildLog(store, 'p', 'b');
    expect(await storedBytes(store)).toBe(Math.floor(TRIMMED_LOG_BYTES / line.length) * line.length);
    const next = await readBuildLog(store, 'p', 'b', first.cursor);
    expect(next.text.startsWith(TRIMMED_LOG_NOTICE + line)).toBe(true);
  });
});
