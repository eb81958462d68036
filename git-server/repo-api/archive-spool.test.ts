import { mkdtemp, readdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { ArchiveSpool, type SpooledArchive } from './archive-spool.ts';

const writing =
  (text: string, counter?: { runs: number }) =>
  async (out: Writable): Promise<void> => {
    if (counter) counter.runs++;
    await new Promise<void>((resolve, reject) => out.write(text, (e) => (e ? reject(e) : resolve())));
  };

async function read(spooled: SpooledArchive | undefined): Promise<string | undefined> {
  if (!spooled) return undefined;
  try {
    return (await spooled.handle.readFile()).toString();
  } finally {
    await spooled.handle.close();
  }
}

async function spool(options: { maxBytes?: number; maxEntryBytes?: number; ttlMs?: number; now?: () => number } = {}) {
  const dir = join(await mkdtemp(join(tmpdir(), 'cw-archive-spool-')), 'archives');
  return { dir, spool: new ArchiveSpool({ dir, ...options }) };
}

describe('ArchiveSpool', () => {
  it('makes an archive once for concurrent requests and serves the file after', async () => {
    const { spool: s } = await spool();
    const counter = { runs: 0 };
    const [a, b] = await Promise.all([s.acquire('k', writing('abc', counter)), s.acquire('k', writing('abc', counter))]);
    expect([await read(a), await read(b), a?.size, counter.runs]).toEqual(['abc', 'abc', 3, 1]);
    expect(await read(await s.open('k'))).toBe('abc');
    expect(await s.open('other')).toBeUndefined();
  });

  it('evicts the least recently used past maxBytes, and what has not been used for ttlMs', async () => {
    let now = 0;
    const { spool: s, dir } = await spool({ maxBytes: 10, maxEntryBytes: 10, ttlMs: 1000, now: () => now });
    await read(await s.acquire('a', writing('aaaa')));
    await read(await s.acquire('b', writing('bbbb')));
    await read(await s.open('a')); // a is now the most recently used
    await read(await s.acquire('c', writing('cccc')));
    expect([await s.open('b'), s.totalBytes]).toEqual([undefined, 8]);
    expect(await read(await s.open('a'))).toBe('aaaa');
    now = 5000;
    expect(await s.open('a')).toBeUndefined();
    expect(await s.open('c')).toBeUndefined();
    expect(s.totalBytes).toBe(0);
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(await readdir(dir)).toEqual([]);
  });

  it('does not spool an archive larger than maxEntryBytes, and leaves no part file', async () => {
    const { spool: s, dir } = await spool({ maxBytes: 100, maxEntryBytes: 5 });
    const counter = { runs: 0 };
    expect(await s.acquire('big', writing('0123456789', counter))).toBeUndefined();
    expect(await s.acquire('big', writing('0123456789', counter))).toBeUndefined();
    expect(counter.runs).toBe(1);
    expect(await readdir(dir)).toEqual([]);
  });

  it('passes on a failure to make the archive', async () => {
    const { spool: s } = await spool();
    await expect(s.acquire('k', () => Promise.reject(new Error('git archive failed')))).rejects.toThrow('git archive failed');
    expect(await read(await s.acquire('k', writing('ok')))).toBe('ok');
  });

  it('counts archives being made against maxBytes: one with no room left is not spooled, and nothing is remembered of it', async () => {
    const { spool: s, dir } = await spool({ maxBytes: 10, maxEntryBytes: 10 });
    let finish: (() => void) | undefined;
    const slow = async (out: Writable) => {
      await writing('12345678')(out);
      await new Promise<void>((resolve) => (finish = resolve));
    };
    const first = s.acquire('one', slow);
    await expect.poll(() => finish).toBeDefined();
    // Eight bytes on the disk already, not spooled yet: eight more would pass the bound. The maker sees its output
    // refused and fails with an error of its own, as git archive's runner does.
    const rethrowing = async (out: Writable) => {
      try {
        await writing('abcdefgh')(out);
      } catch {
        throw new Error('git archive output could not be written');
      }
    };
    expect(await s.acquire('two', rethrowing)).toBeUndefined();
    expect((await readdir(dir)).filter((f) => !f.endsWith('.part'))).toEqual([]);
    finish?.();
    expect(await read(await first)).toBe('12345678');
    // Made again once there is room: the first, not in use, is let go for it.
    expect(await read(await s.acquire('two', writing('abcdefgh')))).toBe('abcdefgh');
    expect([await s.open('one'), s.totalBytes]).toEqual([undefined, 8]);
  });
});
