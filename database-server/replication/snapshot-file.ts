// A snapshot object: the database file, gzipped, moved between disk and bucket through temp files so memory stays
// bounded whatever the database's size.
import { randomBytes } from 'node:crypto';
import { constants, copyFileSync } from 'node:fs';
import { createReadStream, createWriteStream } from 'node:fs';
import { rm, stat } from 'node:fs/promises';
import { pipeline } from 'node:stream/promises';
import { createGunzip, createGzip } from 'node:zlib';
import { GZIP_LEVEL } from './gzip-level.ts';
import type { ObjectStore } from '../../src/object-store/object-store.ts';

/**
 * Copies the database file beside itself, synchronously: the caller holds the tenant lock and has just
 * checkpointed, so the file alone is the whole database. A copy-on-write clone where the file system has one.
 */
export function copyDatabaseFile(dbPath: string): string {
  const copy = `${dbPath}.snapshot-${randomBytes(4).toString('hex')}.tmp`;
  copyFileSync(dbPath, copy, constants.COPYFILE_FICLONE);
  return copy;
}

/** Gzips the copy `copyPath` into the bucket at `key`, then removes the copy and its gzipped form. */
export async function uploadSnapshot(store: ObjectStore, key: string, copyPath: string): Promise<void> {
  const gzPath = `${copyPath}.gz`;
  try {
    await pipeline(createReadStream(copyPath), createGzip({ level: GZIP_LEVEL }), createWriteStream(gzPath));
    const { size } = await stat(gzPath);
    const result = await store.put(key, { length: size, open: () => createReadStream(gzPath) });
    if (result.kind !== 'written') throw new Error(`snapshot ${key} was not written`);
  } finally {
    await Promise.all([rm(copyPath, { force: true }), rm(gzPath, { force: true })]);
  }
}

/** Writes the snapshot at `key` to `targetPath` (created or overwritten), inflated. */
export async function downloadSnapshot(store: ObjectStore, key: string, targetPath: string): Promise<void> {
  const object = await store.getStream(key);
  if (!object) throw new Error(`snapshot ${key} disappeared during the restore`);
  await pipeline(object.body, createGunzip(), createWriteStream(targetPath));
}
