import { randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { copyDatabaseFile } from './snapshot-file.ts';

describe('copyDatabaseFile', () => {
  const dirs: string[] = [];
  const scratch = (): string => {
    const dir = mkdtempSync(path.join(tmpdir(), 'cw-snapshot-'));
    dirs.push(dir);
    return dir;
  };
  afterEach(() => {
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });

  it("copies a big database while the event loop goes on serving other tenants (found by a hostile tenant's 1 GiB database)", async () => {
    const dbPath = path.join(scratch(), 'tenant.db');
    const content = randomBytes(32 * 1024 * 1024);
    writeFileSync(dbPath, content);
    let turns = 0;
    const ticker = setInterval(() => (turns += 1), 0);
    let copy: string;
    try {
      copy = await copyDatabaseFile(dbPath);
    } finally {
      clearInterval(ticker);
    }
    // A synchronous copy gives the loop no turn at all.
    expect(turns).toBeGreaterThanOrEqual(8);
    expect(readFileSync(copy).equals(content)).toBe(true);
  });

  it('leaves nothing behind when the database cannot be read', async () => {
    const dir = scratch();
    await expect(copyDatabaseFile(path.join(dir, 'missing.db'))).rejects.toThrow(/ENOENT/);
    expect(readdirSync(dir)).toEqual([]);
  });
});
