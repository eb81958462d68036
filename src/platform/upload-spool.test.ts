import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, utimesSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { UploadSpool } from './upload-spool.ts';

describe('UploadSpool', () => {
  const dir = mkdtempSync(join(tmpdir(), 'cw-spool-test-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('keeps what passes through on disk, reads it back as often as asked, and leaves nothing once disposed', async () => {
    const spool = await UploadSpool.create(dir);
    const passed: string[] = [];
    for await (const chunk of spool.tee(['ab', 'cd'].map((text) => Buffer.from(text)))) passed.push(Buffer.from(chunk).toString());
    expect(passed).toEqual(['ab', 'cd']);
    const body = spool.body();
    expect(body.length).toBe(4);
    for (let i = 0; i < 2; i++) {
      const chunks: Buffer[] = [];
      for await (const chunk of body.open()) chunks.push(chunk as Buffer);
      expect(Buffer.concat(chunks).toString()).toBe('abcd');
    }
    await spool.dispose();
    expect(readdirSync(dir)).toEqual([]);
  });

  it('removes the spools a killed process left, only those older than the age given', async () => {
    const old = join(dir, 'cw-upload-old');
    const fresh = join(dir, 'cw-upload-fresh');
    mkdirSync(old);
    mkdirSync(fresh);
    const hourAgo = new Date(Date.now() - 2 * 3_600_000);
    utimesSync(old, hourAgo, hourAgo);
    expect(await UploadSpool.removeLeftovers(dir)).toBe(1);
    expect([existsSync(old), existsSync(fresh)]).toEqual([false, true]);
  });
});
