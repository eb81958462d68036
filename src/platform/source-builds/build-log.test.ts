import { describe, expect, it } from 'vitest';
import { MemoryObjectStore } from '../../object-store/memory-object-store.ts';
import { BuildLogWriter, deleteBuildLog, deleteBuildObjects, MAX_BUILD_LOG_BYTES, readBuildLog } from './build-log.ts';

/** The whole log of build `p/b`, read chunk by chunk to its end. */
async function wholeLog(store: MemoryObjectStore): Promise<string> {
  let text = '';
  let cursor: string | undefined;
  for (;;) {
    const read = await readBuildLog(store, 'p', 'b', cursor);
    text += read.text;
    cursor = read.cursor;
    if (read.end) return text;
  }
}

describe('build logs', () => {
  it('are read back in order, followed from a cursor, and end with the build', async () => {
    const store = new MemoryObjectStore();
    const log = new BuildLogWriter(store, 'p', 'b');
    log.write('npm ci\n');
    await log.flush();
    const first = await readBuildLog(store, 'p', 'b');
    expect(first.text).toBe('npm ci\n');
    expect(first.end).toBeUndefined();
    log.write('added 3 packages\n');
    log.write('build done\n');
    await log.finish({ state: 'Succeeded' });
    const rest = await readBuildLog(store, 'p', 'b', first.cursor);
    expect(rest.text).toBe('added 3 packages\nbuild done\n');
    expect(rest.end).toEqual({ state: 'Succeeded' });
    const again = await readBuildLog(store, 'p', 'b', rest.cursor);
    expect(again.text).toBe('');
    expect(again.end).toEqual({ state: 'Succeeded' });
  });

  it('keeps output written while a chunk is being uploaded, and a chunk whose upload failed', async () => {
    const store = new MemoryObjectStore();
    const put = store.put.bind(store);
    let uploads = 0;
    const log = new BuildLogWriter(
      Object.assign(store, {
        put: async (...args: Parameters<MemoryObjectStore['put']>) => {
          uploads += 1;
          // The first upload fails; the second is slow enough for the build to write meanwhile.
          if (uploads === 1) throw new Error('bucket unavailable');
          if (uploads === 2) log.write('fetching the source\n');
          return put(...args);
        },
      }),
      'p',
      'b',
    );
    log.write('[cloudwright] building\n');
    await log.flush();
    expect(uploads).toBe(1);
    await log.flush();
    await log.finish({ state: 'Succeeded' });
    expect((await readBuildLog(store, 'p', 'b')).text).toBe('[cloudwright] building\nfetching the source\n');
  });

  it('says the end only once every chunk was read', async () => {
    const store = new MemoryObjectStore();
    const log = new BuildLogWriter(store, 'p', 'b');
    for (let i = 0; i < 3; i++) {
      log.write(`line ${i}\n`);
      await log.flush();
    }
    await log.finish({ state: 'Failed', message: 'exit 1' });
    const part = await readBuildLog(store, 'p', 'b', undefined, 2);
    expect(part.text).toBe('line 0\nline 1\n');
    expect(part.end).toBeUndefined();
    const rest = await readBuildLog(store, 'p', 'b', part.cursor, 2);
    expect(rest.text).toBe('line 2\n');
    expect(rest.end).toEqual({ state: 'Failed', message: 'exit 1' });
  });

  it('is bounded, saying so in one line', async () => {
    const store = new MemoryObjectStore();
    const log = new BuildLogWriter(store, 'p', 'b');
    const line = `${'x'.repeat(1023)}\n`;
    for (let i = 0; i < MAX_BUILD_LOG_BYTES / 1024 + 100; i++) log.write(line);
    await log.finish({ state: 'Succeeded' });
    const text = await wholeLog(store);
    expect(text.length).toBeLessThan(MAX_BUILD_LOG_BYTES + 200);
    expect(text).toMatch(/the rest of the build's output is left out\n$/);
  });

  it('stays bounded while a chunk is being uploaded: what is in flight counts (a slow bucket let 7.27 MB through)', async () => {
    const store = new MemoryObjectStore();
    const put = store.put.bind(store);
    let uploading: (() => void) | undefined;
    const log = new BuildLogWriter(
      Object.assign(store, {
        // Each upload waits until the test lets it through, as a slow bucket does while the build prints on.
        put: (...args: Parameters<MemoryObjectStore['put']>) => new Promise<void>((resolve) => (uploading = resolve)).then(() => put(...args)),
      }),
      'p',
      'b',
    );
    const line = `${'x'.repeat(1023)}\n`;
    for (let round = 0; round < 3; round++) {
      for (let i = 0; i < MAX_BUILD_LOG_BYTES / 1024; i++) log.write(line);
      await new Promise((resolve) => setImmediate(resolve));
      uploading?.();
      await new Promise((resolve) => setImmediate(resolve));
    }
    let finished = false;
    const finishing = log.finish({ state: 'Succeeded' }).then(() => (finished = true));
    while (!finished) {
      uploading?.(); // the rest goes in chunks of 64 KiB, each let through as it comes
      await new Promise((resolve) => setImmediate(resolve));
    }
    await finishing;
    const text = await wholeLog(store);
    expect(text.length).toBeLessThan(MAX_BUILD_LOG_BYTES + 200);
    const sizes = (await store.list('')).items.filter((i) => i.key.endsWith('.txt')).map((i) => i.size);
    expect(Math.max(...sizes)).toBeLessThanOrEqual(64 * 1024);
  });

  it('are deleted with the build’s other objects', async () => {
    const store = new MemoryObjectStore();
    const log = new BuildLogWriter(store, 'p', 'b');
    log.write('x\n');
    await log.finish({ state: 'Succeeded' });
    await store.put('source-builds/p/b/artifact.tar.zst', 'a');
    await store.put('source-builds/p/bb/log/00000000.txt', 'other build');
    await deleteBuildObjects(store, 'p', 'b');
    expect((await store.list('source-builds/p/b/')).items).toEqual([]);
    expect((await store.list('source-builds/p/bb/')).items).toHaveLength(1);
  });

  it('writes nothing more once abandoned: deleted after the upload under way, the build leaves no chunk behind', async () => {
    const store = new MemoryObjectStore();
    const put = store.put.bind(store);
    let uploading: (() => void) | undefined;
    let first = true;
    const log = new BuildLogWriter(
      Object.assign(store, {
        // The first upload waits for the test; any after it goes straight through, as a leak would.
        put: async (...args: Parameters<MemoryObjectStore['put']>) => {
          if (first) {
            first = false;
            await new Promise<void>((resolve) => (uploading = resolve));
          }
          return put(...args);
        },
      }),
      'p',
      'b',
    );
    for (let i = 0; i < 300; i++) log.write(`${'y'.repeat(1023)}\n`); // five chunks' worth, the first one uploading
    await new Promise((resolve) => setImmediate(resolve));
    expect(uploading).toBeDefined();
    const abandoned = log.abandon();
    uploading?.();
    await abandoned;
    await deleteBuildObjects(store, 'p', 'b');
    for (let i = 0; i < 5; i++) await new Promise((resolve) => setImmediate(resolve));
    expect((await store.list('source-builds/p/b/')).items).toEqual([]);
  });

  it('can be deleted alone, leaving the output of a run that ended while the operator was down', async () => {
    const store = new MemoryObjectStore();
    const log = new BuildLogWriter(store, 'p', 'b');
    log.write('x\n');
    await log.finish({ state: 'Building' });
    await store.put('source-builds/p/b/output.tar', 'the output');
    await store.put('source-builds/p/b/source.tar.gz', 'the source');
    await deleteBuildLog(store, 'p', 'b');
    expect((await store.list('source-builds/p/b/')).items.map((i) => i.key).sort()).toEqual(['source-builds/p/b/output.tar', 'source-builds/p/b/source.tar.gz']);
  });
});
