import { randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { text } from 'node:stream/consumers';
import { afterAll, describe, expect, it } from 'vitest';
import { IN_MEMORY_REQUEST_BYTES, receiveFetchRequest } from './fetch-request.ts';
import { SpoolBudget, SpoolFullError } from './spool-budget.ts';

const tmpDir = mkdtempSync(join(tmpdir(), 'cw-fetch-request-'));
afterAll(() => rmSync(tmpDir, { recursive: true, force: true }));

const budget = new SpoolBudget({ perOwnerBytes: 1024 ** 2, totalBytes: 4 * 1024 ** 2 });
const left = () => readdirSync(tmpDir);

describe('receiveFetchRequest', () => {
  it('gives back a small request from memory and a large one from a spool file, counted until disposed', async () => {
    const small = await receiveFetchRequest(Readable.from([Buffer.from('0032want '), Buffer.from('x\n')]), { tmpDir, spool: budget.open('ada') });
    expect(await text(small.body)).toBe('0032want x\n');
    expect([left(), budget.heldBytes]).toEqual([[], 0]);

    const bytes = randomBytes(IN_MEMORY_REQUEST_BYTES * 3).toString('hex');
    const spool = budget.open('ada');
    const large = await receiveFetchRequest(Readable.from([bytes.slice(0, 1000), bytes.slice(1000)].map((s) => Buffer.from(s))), { tmpDir, spool });
    expect(left()).toHaveLength(1);
    expect(budget.heldBytes).toBe(bytes.length);
    expect(await text(large.body)).toBe(bytes);
    await large.dispose();
    spool.release();
    expect([left(), budget.heldBytes]).toEqual([[], 0]);
  });

  it('leaves nothing behind when the spool refuses the bytes or the body fails', async () => {
    const tooMuch = Readable.from([randomBytes(IN_MEMORY_REQUEST_BYTES), randomBytes(1024 ** 2)]);
    const spool = budget.open('bob');
    await expect(receiveFetchRequest(tooMuch, { tmpDir, spool })).rejects.toBeInstanceOf(SpoolFullError);
    spool.release();
    async function* cut() {
      yield randomBytes(IN_MEMORY_REQUEST_BYTES + 1);
      yield randomBytes(1024);
      throw new Error('the client went away');
    }
    await expect(receiveFetchRequest(Readable.from(cut()), { tmpDir, spool: budget.open('carol') })).rejects.toThrow('the client went away');
    expect(left()).toEqual([]);
  });
});
