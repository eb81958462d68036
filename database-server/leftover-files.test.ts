import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { removeLeftoverFiles } from './leftover-files.ts';

let dir: string | undefined;
afterEach(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('removeLeftoverFiles', () => {
  it('removes the copies and staged files a process died with, and nothing of the databases', async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'cw-leftovers-'));
    const kept = ['t1.db', 't1.db-wal', 't1.db-shm', 'snapshot-notes.txt', 't2.db'];
    const leftovers = ['t1.db.snapshot-0a1b2c3d.tmp', 't1.db.snapshot-0a1b2c3d.tmp.gz', 't2.db.restore-deadbeef.tmp', 't2.db.in-place-01234567', 't2.db.in-place-01234567-wal'];
    for (const name of [...kept, ...leftovers]) writeFileSync(path.join(dir, name), 'x');
    expect(await removeLeftoverFiles(dir)).toBe(leftovers.length);
    expect(readdirSync(dir).sort()).toEqual([...kept].sort());
    expect(await removeLeftoverFiles(path.join(dir, 'missing'))).toBe(0);
  });

  it("with several replicas, removes the databases' own files too, none of which a new process opens (review-164 F12)", async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'cw-leftovers-'));
    const kept = ['snapshot-notes.txt', 'db-notes', 't1.dbx'];
    const removed = ['t1.db', 't1.db-wal', 't1.db-shm', 't2.db', 't2.db.restore-deadbeef.tmp'];
    for (const name of [...kept, ...removed]) writeFileSync(path.join(dir, name), 'x');
    expect(await removeLeftoverFiles(dir, { databases: true })).toBe(removed.length);
    expect(readdirSync(dir).sort()).toEqual([...kept].sort());
  });
});
