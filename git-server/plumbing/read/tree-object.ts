// git's tree object format, read directly: entries `<octal mode> SP <name> NUL <raw object id>` (20 bytes for
// sha1, 32 for sha256), in git's order (by name, a directory compared as `name/`). Modes are canonicalised as
// git's own tree walk does (and `ls-tree` prints them): a regular file is 100644 or 100755 whatever other bits
// an old tool wrote, a directory 040000. Pure.
import type { EntryType } from './tree-entries.ts';

export interface RawTreeEntry {
  /** The name's bytes (not necessarily UTF-8). */
  readonly name: Buffer;
  readonly type: EntryType;
  /** Six octal digits, as `ls-tree` writes it. */
  readonly mode: string;
  readonly oid: string;
}

const S_IFMT = 0o170000;

/** The mode as git canonicalises it (`canon_mode`), and what kind of object the entry is. */
export function canonicalMode(octal: number): { mode: string; type: EntryType } {
  switch (octal & S_IFMT) {
    case 0o040000:
      return { mode: '040000', type: 'tree' };
    case 0o100000:
      return { mode: octal & 0o100 ? '100755' : '100644', type: 'blob' };
    case 0o120000:
      return { mode: '120000', type: 'blob' };
    default:
      return { mode: '160000', type: 'commit' };
  }
}

/**
 * The entries of tree object `bytes` whose ids are `oidBytes` long (20 or 32), in stored order; stops after
 * `limit`. Throws on bytes that are not a tree.
 */
export function* treeEntries(bytes: Buffer, oidBytes: number, limit = Infinity): Generator<RawTreeEntry> {
  let n = 0;
  for (let at = 0; at < bytes.length && n < limit; n++) {
    const { space, nul, next } = entryAt(bytes, at, oidBytes);
    yield entryOf(bytes, at, space, nul, oidBytes);
    at = next;
  }
}

/** The entry named `name` (bytes, compared exactly) in tree object `bytes`, or undefined. */
export function findTreeEntry(bytes: Buffer, oidBytes: number, name: Buffer): RawTreeEntry | undefined {
  for (let at = 0; at < bytes.length;) {
    const { space, nul, next } = entryAt(bytes, at, oidBytes);
    if (nul - space - 1 === name.length && bytes.compare(name, 0, name.length, space + 1, nul) === 0) return entryOf(bytes, at, space, nul, oidBytes);
    at = next;
  }
  return undefined;
}

/** Where the entry starting at `at` has its space and NUL, and where the next one starts. */
function entryAt(bytes: Buffer, at: number, oidBytes: number): { space: number; nul: number; next: number } {
  const space = bytes.indexOf(0x20, at);
  const nul = space === -1 ? -1 : bytes.indexOf(0, space + 1);
  if (nul === -1 || nul + 1 + oidBytes > bytes.length) throw new Error(`malformed tree object at byte ${at}`);
  return { space, nul, next: nul + 1 + oidBytes };
}

function entryOf(bytes: Buffer, at: number, space: number, nul: number, oidBytes: number): RawTreeEntry {
  const octal = parseInt(bytes.toString('latin1', at, space), 8);
  if (Number.isNaN(octal)) throw new Error(`malformed tree entry mode at byte ${at}`);
  return { name: bytes.subarray(space + 1, nul), ...canonicalMode(octal), oid: bytes.toString('hex', nul + 1, nul + 1 + oidBytes) };
}

/** How many bytes an object id of `oid`'s length (hex) takes in a tree. */
export function oidBytesOf(oid: string): number {
  return oid.length / 2;
}
