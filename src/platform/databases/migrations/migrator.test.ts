import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { Migrator } from './migrator.ts';

const dir = mkdtempSync(join(tmpdir(), 'cw-migrator-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('Migrator', () => {
  it('refuses a file holding a NUL, applying and recording nothing of it (SQLite would end the file there)', async () => {
    const migrator = new Migrator({ url: `file:${join(dir, 'nul.db')}`, token: '' });
    const outcome = await migrator.apply([{ name: '0001_init.sql', checksum: 'c1', sql: 'CREATE TABLE a(x);\n\0\nCREATE TABLE b(x);' }]);
    expect(outcome).toEqual({ applied: [], failed: { file: '0001_init.sql', statement: '', message: expect.stringContaining('NUL byte') } });
    expect(await migrator.applied()).toEqual([]);
    const clean = await migrator.apply([{ name: '0001_init.sql', checksum: 'c2', sql: 'CREATE TABLE a(x);\nCREATE TABLE b(x);' }]);
    expect(clean).toEqual({ applied: ['0001_init.sql'] });
  });
});
