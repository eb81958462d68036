// Against a real (temporary) bare repository: git's batch protocol is the contract here.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { runGit } from '../../../src/git/run-git.ts';
import { ObjectReader, ObjectTooLargeError } from './object-reader.ts';
import { ObjectReaderPool } from './object-readers.ts';

let dir = '';
let blob = '';
let big = '';
let tree = '';
let commit = '';
const bigText = `${'x'.repeat(300_000)}\n`;
const readers: ObjectReader[] = [];
const git = async (args: string[], stdin?: string) => (await runGit(['-C', dir, ...args], stdin === undefined ? {} : { stdin })).stdout.toString().trim();
const reader = () => {
  const r = new ObjectReader(dir);
  readers.push(r);
  return r;
};

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'object-reader-'));
  await runGit(['init', '-q', '--bare', dir]);
  blob = await git(['hash-object', '-w', '--stdin'], 'hello\n');
  big = await git(['hash-object', '-w', '--stdin'], bigText);
  tree = await git(['mktree'], `100644 blob ${blob}\tsmall file\n100644 blob ${big}\tbig\n`);
  commit = await runGit(['-C', dir, 'commit-tree', tree, '-m', 'x'], { env: { GIT_AUTHOR_NAME: 'a', GIT_AUTHOR_EMAIL: 'a@b', GIT_COMMITTER_NAME: 'a', GIT_COMMITTER_EMAIL: 'a@b' } }).then((r) =>
    r.stdout.toString().trim(),
  );
});
afterEach(() => {
  for (const r of readers.splice(0)) r.close();
});
afterAll(() => rm(dir, { recursive: true, force: true }));

describe('ObjectReader', () => {
  it('answers info for ids and revision names, undefined for missing ones', async () => {
    const r = reader();
    expect(await r.info([blob, `${commit}^{tree}`, `${commit}:small file`, '0'.repeat(40), `${commit}:nope`])).toEqual([
      { oid: blob, type: 'blob', size: 6 },
      { oid: tree, type: 'tree', size: expect.any(Number) },
      { oid: blob, type: 'blob', size: 6 },
      undefined,
      undefined,
    ]);
  });

  it('answers contents, large ones across many chunks, and skips (fails) one past the bound', async () => {
    const r = reader();
    expect((await r.contents(blob, 100))?.bytes.toString()).toBe('hello\n');
    expect((await r.contents(big, 1 << 20))?.bytes.toString()).toBe(bigText);
    await expect(r.contents(big, 1000)).rejects.toBeInstanceOf(ObjectTooLargeError);
    expect(await r.contents('0'.repeat(40), 100)).toBeUndefined();
    // The skipped bytes did not shift the answers after them.
    expect(await r.info([blob])).toEqual([{ oid: blob, type: 'blob', size: 6 }]);
  });

  it('matches many concurrent requests to their answers', async () => {
    const r = reader();
    const asks = Array.from({ length: 200 }, (_, i) =>
      i % 3 === 0 ? r.contents(i % 2 ? big : blob, 1 << 20).then((o) => o?.bytes.length) : r.info([blob, big]).then((infos) => infos.map((o) => o?.size)),
    );
    const answers = await Promise.all(asks);
    answers.forEach((answer, i) => expect(answer).toEqual(i % 3 === 0 ? (i % 2 ? bigText.length : 6) : [6, bigText.length]));
    expect(r.pending).toBe(0);
  });

  it('refuses a name that would break the protocol, and goes on answering', async () => {
    const r = reader();
    await expect(r.info([`${commit}:a\nb`])).rejects.toThrow(/cannot ask/);
    expect(await r.info([blob])).toHaveLength(1);
  });

  it('fails what is pending when the process dies, and then every request', async () => {
    const r = reader();
    const pending = r.contents(big, 1 << 20);
    r.kill();
    await expect(pending).rejects.toThrow(/killed by SIGKILL/);
    expect(r.usable).toBe(false);
    await expect(r.info([blob])).rejects.toThrow(/killed/);
  });

  it('answers what was asked before close, then exits', async () => {
    let exit: () => void = () => {};
    const exited = new Promise<void>((resolve) => (exit = resolve));
    const r = new ObjectReader(dir, { onExit: () => exit() });
    const answer = r.info([blob]);
    r.close();
    expect(await answer).toEqual([{ oid: blob, type: 'blob', size: 6 }]);
    await expect(r.info([blob])).rejects.toThrow(/closed/);
    await exited;
  });

  it('sees objects written after it started', async () => {
    const r = reader();
    expect(await r.info([blob])).toHaveLength(1);
    const later = await git(['hash-object', '-w', '--stdin'], 'written later\n');
    expect(await r.info([later])).toEqual([{ oid: later, type: 'blob', size: 14 }]);
  });
});

describe('ObjectReaderPool', () => {
  it('keeps one reader per directory, replaces a dead one, closes the least recently used past its bound', async () => {
    const other = await mkdtemp(join(tmpdir(), 'object-reader-other-'));
    await runGit(['init', '-q', '--bare', other]);
    const pool = new ObjectReaderPool({ max: 1 });
    try {
      const first = pool.for(dir);
      expect(pool.for(dir)).toBe(first);
      first.kill();
      await expect(first.info([blob])).rejects.toThrow();
      const second = pool.for(dir);
      expect(second).not.toBe(first);
      expect(await second.info([blob])).toHaveLength(1);
      const elsewhere = pool.for(other);
      expect(second.usable).toBe(false);
      expect(pool.size).toBe(1);
      expect(await elsewhere.info([blob])).toEqual([undefined]);
    } finally {
      pool.closeAll();
      await rm(other, { recursive: true, force: true });
    }
  });

  it('closes readers idle for its idle time', async () => {
    const pool = new ObjectReaderPool({ idleMs: 40 });
    const r = pool.for(dir);
    expect(await r.info([blob])).toHaveLength(1);
    await new Promise((resolve) => setTimeout(resolve, 150));
    expect(r.usable).toBe(false);
    expect(pool.size).toBe(0);
  });
});
