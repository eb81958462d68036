import { mkdtemp, open, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { PageBatch } from './page-batch.ts';
import type { SegmentCommit } from './segment-codec.ts';
import { FRAME_HEADER_BYTES } from './wal-format.ts';

const PAGE = 512;
let dir: string;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'page-batch-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** A commit writing `pages` (page number → fill byte) and leaving the database `dbSize` pages long. */
function commit(dbSize: number, pages: Record<number, number>): SegmentCommit {
  const frames = Buffer.concat(
    Object.entries(pages).map(([pgno, fill]) => {
      const frame = Buffer.alloc(FRAME_HEADER_BYTES + PAGE, fill);
      frame.fill(0, 0, FRAME_HEADER_BYTES);
      frame.writeUInt32BE(Number(pgno), 0);
      return frame;
    }),
  );
  return { ts: 0, dbSize, frameCount: Object.keys(pages).length, frames };
}

/** What applying each commit on its own gives: its pages written, then the file cut or grown to its size. */
function appliedOneByOne(start: Buffer, commits: SegmentCommit[]): Buffer {
  let file = Buffer.from(start);
  for (const c of commits) {
    for (let offset = 0; offset < c.frames.byteLength; offset += FRAME_HEADER_BYTES + PAGE) {
      const pgno = c.frames.readUInt32BE(offset);
      if (pgno > c.dbSize) continue;
      if (file.byteLength < pgno * PAGE) file = Buffer.concat([file, Buffer.alloc(pgno * PAGE - file.byteLength)]);
      c.frames.copy(file, (pgno - 1) * PAGE, offset + FRAME_HEADER_BYTES, offset + FRAME_HEADER_BYTES + PAGE);
    }
    file = c.dbSize * PAGE <= file.byteLength ? file.subarray(0, c.dbSize * PAGE) : Buffer.concat([file, Buffer.alloc(c.dbSize * PAGE - file.byteLength)]);
  }
  return file;
}

async function appliedAsBatch(start: Buffer, commits: SegmentCommit[]): Promise<Buffer> {
  const path = join(dir, 'db');
  await writeFile(path, start);
  const batch = new PageBatch(PAGE);
  for (const c of commits) batch.add(c);
  const file = await open(path, 'r+');
  try {
    await batch.writeTo(file);
  } finally {
    await file.close();
  }
  return readFile(path);
}

describe('PageBatch', () => {
  const snapshot = Buffer.concat([1, 2, 3, 4, 5, 6].map((fill) => Buffer.alloc(PAGE, fill)));

  it('writes the last image of each page, in runs, and the last commit’s size', async () => {
    const commits = [commit(6, { 2: 20, 3: 30 }), commit(8, { 3: 31, 7: 70, 8: 80 }), commit(8, { 1: 10 })];
    expect(await appliedAsBatch(snapshot, commits)).toEqual(appliedOneByOne(snapshot, commits));
  });

  it('applies a shrink in the middle of the batch as applying each commit would: cut pages read as zeros', async () => {
    // Page 5 is cut by the second commit and never written again: zeros, not the snapshot's nor the first commit's.
    const commits = [commit(6, { 5: 50, 6: 60 }), commit(3, { 2: 21 }), commit(6, { 4: 40 })];
    const batched = await appliedAsBatch(snapshot, commits);
    expect(batched).toEqual(appliedOneByOne(snapshot, commits));
    expect(batched.subarray(4 * PAGE, 5 * PAGE).every((b) => b === 0)).toBe(true);
  });

  it('ignores frames past their commit’s size and writes nothing when empty', async () => {
    const commits = [commit(2, { 1: 11, 4: 44 })];
    expect(await appliedAsBatch(snapshot, commits)).toEqual(appliedOneByOne(snapshot, commits));
    expect(await appliedAsBatch(snapshot, [])).toEqual(snapshot);
  });
});
