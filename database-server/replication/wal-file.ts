// Synchronous reads of a tenant's `-wal` file: capture runs under the tenant lock, between two statements.
import { closeSync, openSync, readSync, statSync } from 'node:fs';

/** The WAL's size in bytes; 0 when there is no WAL file (nothing written since the last TRUNCATE, or never). */
export function walSize(walPath: string): number {
  return statSync(walPath, { throwIfNoEntry: false })?.size ?? 0;
}

/** `length` bytes at `offset`; fewer only if the file is shorter. Into `into` when given (as long as `length` at least). */
export function readWal(walPath: string, offset: number, length: number, into?: Buffer): Buffer {
  const buffer = into ?? Buffer.alloc(length);
  const fd = openSync(walPath, 'r');
  try {
    let read = 0;
    while (read < length) {
      const n = readSync(fd, buffer, read, length - read, offset + read);
      if (n === 0) break;
      read += n;
    }
    return buffer.subarray(0, read);
  } finally {
    closeSync(fd);
  }
}
