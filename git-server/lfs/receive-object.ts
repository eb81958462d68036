// Receiving an LFS upload: the body is spooled to a temporary file while it is hashed and counted, so an
// object of any size passes through in constant memory and nothing unverified ever reaches the bucket.
import { createHash, randomBytes } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ObjectStore } from '../../src/object-store/object-store.ts';
import { lfsObjectKey, type RepoPath } from '../../src/repo-store/index.ts';
import { LfsError, tooLarge } from './lfs-errors.ts';
import { receiveMeter, type SpoolMeter } from '../plumbing/spool-budget.ts';
import type { QuotaReservation } from '../plumbing/storage-quota.ts';

export interface ReceiveObject {
  repo: RepoPath;
  oid: string;
  body: Readable;
  /** The size the batch announced, when the client sent it; the body must have exactly this many bytes. */
  expectedSize?: number;
  maxBytes: number;
  /** Where the body is spooled (a disk, not tmpfs, for big objects). */
  spoolDir: string;
  /** Counts the spooled bytes against what the owner's and every receive may hold at once (spool-budget.ts). */
  spool?: SpoolMeter;
  /** Counts the verified body against the repository's storage quota before it is stored; throws to refuse it. */
  admit?: (bytes: number) => Promise<QuotaReservation>;
}

/**
 * Stores the body as LFS object `oid` of `repo` after checking its size and SHA-256: 413 past `maxBytes`
 * (stopping the read there), 422 on a size or digest mismatch. The write declares the SHA-256 so the store
 * refuses bytes damaged on the way. An object already present is left as it is (same oid, same bytes).
 */
export async function receiveObject(objects: ObjectStore, input: ReceiveObject): Promise<void> {
  const spool = join(input.spoolDir, `cw-git-lfs-${randomBytes(8).toString('hex')}.tmp`);
  const hash = createHash('sha256');
  const measure = receiveMeter(input.maxBytes, tooLarge, input.spool, (chunk) => hash.update(chunk));
  let reservation: QuotaReservation | undefined;
  try {
    await pipeline(input.body, measure, createWriteStream(spool, { flags: 'wx', mode: 0o600 }));
    const size = measure.received;
    if (input.expectedSize !== undefined && size !== input.expectedSize) {
      throw new LfsError(422, 'size_mismatch', `The upload has ${size} bytes; the object was announced with ${input.expectedSize}.`);
    }
    const digest = hash.digest('hex');
    if (digest !== input.oid) throw new LfsError(422, 'checksum_mismatch', `The upload's SHA-256 is ${digest}, not the object id ${input.oid}.`);
    if (input.admit) {
      if (await objects.head(lfsObjectKey(input.repo, input.oid))) return; // stored already: it adds nothing to count
      reservation = await input.admit(size);
    }
    // If-None-Match: content-addressed, so an object already there (a concurrent upload of the same file) is the same.
    const put = await objects.put(
      lfsObjectKey(input.repo, input.oid),
      { length: size, open: () => createReadStream(spool) },
      {
        ifNoneMatch: '*',
        sha256: digest,
        contentType: 'application/octet-stream',
      },
    );
    if (put.kind === 'written') reservation?.lfsStored();
  } finally {
    reservation?.release();
    await rm(spool, { force: true });
  }
}
