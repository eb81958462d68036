import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { copyDatabaseFile, copyInChunks } from './snapshot-file.ts';

describe('copying a database file for a snapshot', () => {
  const dirs: string[] = [];
  const scratch = (): string => {
    const dir = mkdtempSync(path.join(tmpdir(), 'cw-snapshot-'));
    dirs.push(dir);
    return dir;
  };
  afterEach(() => {
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });

  it("copies a chunk at a time, the event loop serving others between chunks (found by a hostile tenant's 1 GiB database)", async () => {
    const dir = scratch();
    const content = randomBytes(8 * 1024 * 1024 + 1000);
    writeFileSync(path.join(dir, 'tenant.db'), content);
    // Turns of the loop's check phase while the copy runs: a synchronous copy gives none, one await per chunk one each.
    let turns = 0;
    let copying = true;
    const turn = (): void => {
      turns += 1;
      if (copying) setImmediate(turn);
    };
    setImmediate(turn);
    await copyInChunks(path.join(dir, 'tenant.db'), path.join(dir, 'copy'));
    copying = false;
    expect(turns).toBeGreaterThanOrEqual(9); // nine chunks of 1 MiB
    expect(readFileSync(path.join(dir, 'copy')).equals(content)).toBe(true);
  });

  it('gives the same bytes whichever way the file system copies (a clone where it can)', async () => {
    const dbPath = path.join(scratch(), 'tenant.db');
    const content = randomBytes(3 * 1024 * 1024);
    writeFileSync(dbPath, content);
    expect(readFileSync(await copyDatabaseFile(dbPath)).equals(content)).toBe(true);
  });

  it('leaves nothing behind when the copy fails part way, its target made', async () => {
    // A directory: the clone fails, it opens for reading, the target is created, and the first read fails (EISDIR).
    const dir = scratch();
    mkdirSync(path.join(dir, 'tenant.db'));
    await expect(copyDatabaseFile(path.join(dir, 'tenant.db'))).rejects.toThrow(/EISDIR/);
    expect(readdirSync(dir)).toEqual(['tenant.db']);
  });

  it('leaves nothing behind when the database cannot be read', async () => {
    const dir = scratch();
    await expect(copyDatabaseFile(path.join(dir, 'missing.db'))).rejects.toThrow(/ENOENT/);
    expect(readdirSync(dir)).toEqual([]);
  });
});
