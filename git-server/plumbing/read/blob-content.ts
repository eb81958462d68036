// What a blob's bytes are, as the JSON API tells a client: text or binary (git's own test: a NUL in the first
// 8000 bytes; we also call bytes that are not UTF-8 binary, as they cannot travel as a JSON string), and whether
// they are a Git LFS pointer. Pure.

const SNIFF = 8000;
const utf8 = new TextDecoder('utf-8', { fatal: true });

/** The bytes as text, or undefined when they are binary. */
export function decodeText(bytes: Uint8Array): string | undefined {
  if (bytes.subarray(0, SNIFF).includes(0)) return undefined;
  try {
    return utf8.decode(bytes);
  } catch {
    return undefined;
  }
}

export interface LfsPointer {
  /** The object's sha256. */
  readonly oid: string;
  readonly size: number;
}

/** Pointer files are small (the spec caps them below 1024 bytes). */
export const MAX_LFS_POINTER = 1024;

const POINTER = /^version https:\/\/git-lfs\.github\.com\/spec\/v1\n(?:[a-z0-9.-]+ [^\n]*\n)*?oid sha256:([0-9a-f]{64})\n(?:[a-z0-9.-]+ [^\n]*\n)*?size (\d+)\n(?:[a-z0-9.-]+ [^\n]*\n)*$/;

/** The LFS pointer `text` is (git-lfs spec v1: version first, then keys in order), or undefined. */
export function parseLfsPointer(text: string): LfsPointer | undefined {
  if (text.length >= MAX_LFS_POINTER) return undefined;
  const match = POINTER.exec(text);
  if (!match) return undefined;
  const size = Number(match[2]);
  return Number.isSafeInteger(size) ? { oid: match[1] as string, size } : undefined;
}

/** The README a directory listing shows, of `names` (blobs only): `README.md` first, then other spellings. */
export function pickReadme(names: readonly string[]): string | undefined {
  const rank = (name: string) => ['readme.md', 'readme.markdown', 'readme', 'readme.txt', 'readme.rst', 'readme.adoc'].indexOf(name.toLowerCase());
  return names
    .filter((name) => rank(name) !== -1)
    .sort((a, b) => rank(a) - rank(b) || (a < b ? -1 : 1))
    .at(0);
}
