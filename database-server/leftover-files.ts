import { readdir, rm } from 'node:fs/promises';
import path from 'node:path';

/**
 * What a process leaves beside the databases only while it works: a snapshot's copy and its gzipped form, a restore's
 * file being written, an in-place restore's staged file and its WAL. Each is removed when its work ends, but not when
 * the process dies first, and each is as large as the database.
 */
const LEFTOVER = /\.db\.(?:snapshot-[0-9a-f]+\.tmp(?:\.gz)?|restore-[0-9a-f]+\.tmp|in-place-[0-9a-f]+(?:-wal|-shm)?)$/;

/** A database's own files: `<id>.db`, its WAL and its shared memory. */
const DATABASE = /\.db(?:-wal|-shm)?$/;

/**
 * Removes the leftovers of an earlier process from the data directory: call at start, before any database opens
 * (nothing of this process is at work on them then). With `databases` (several replicas), the databases' own files
 * go too: a process takes a database from its files only when it kept them itself when its lease expired (a new
 * process never does: the lease it resumes names its nonce), and restores every other from the bucket, so those of
 * databases deleted or placed elsewhere since would stay on the disk for good, counted nowhere (review-164 F12).
 * Answers how many it removed.
 */
export async function removeLeftoverFiles(dataDir: string, options: { databases?: boolean } = {}): Promise<number> {
  const names = await readdir(dataDir).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return [];
    throw error;
  });
  const leftovers = names.filter((name) => LEFTOVER.test(name) || (options.databases === true && DATABASE.test(name)));
  await Promise.all(leftovers.map((name) => rm(path.join(dataDir, name), { force: true })));
  return leftovers.length;
}
