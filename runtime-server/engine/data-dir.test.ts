import { mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { prepareDataDir } from './data-dir.ts';

describe('prepareDataDir', () => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });
  const fresh = () => {
    const dir = mkdtempSync(join(tmpdir(), 'cw-dd-'));
    dirs.push(dir);
    return dir;
  };

  it('empties the run directory, keeps unpacked builds and deletes half-unpacked ones', async () => {
    const dir = fresh();
    mkdirSync(join(dir, 'run', 'gen1'), { recursive: true });
    writeFileSync(join(dir, 'run', 'gen1', 'dispatcher.sock'), '');
    writeFileSync(join(dir, 'run', 'gen1', 'pid'), 'not a pid');
    mkdirSync(join(dir, 'builds', 'p.web.b1'), { recursive: true });
    mkdirSync(join(dir, 'builds', '.tmp-123'), { recursive: true });
    const { run, builds } = await prepareDataDir(dir);
    expect(readdirSync(run)).toEqual([]);
    expect(statSync(run).mode & 0o777).toBe(0o700);
    expect(readdirSync(builds)).toEqual(['p.web.b1']);
  });

  it('creates what is missing', async () => {
    const dir = fresh();
    const { run, builds } = await prepareDataDir(join(dir, 'new'));
    expect(readdirSync(run)).toEqual([]);
    expect(readdirSync(builds)).toEqual([]);
  });

  it('refuses a path too long for Unix sockets', async () => {
    await expect(prepareDataDir(`/tmp/${'x'.repeat(90)}`)).rejects.toThrow('runtime dataDir is too long for Unix socket paths');
  });
});
