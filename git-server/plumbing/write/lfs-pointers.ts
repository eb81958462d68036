// Whether a tree holds a Git LFS pointer file: a template copied by `POST /initialize` must not, because the
// LFS objects the pointers name live under the source repository and would not follow the tree.
import { MAX_LFS_POINTER, parseLfsPointer } from '../read/blob-content.ts';
import { runGit } from '../../../src/git/run-git.ts';

// `ls-tree -r -l` of a large tree is long: a generous bound (≈ 2 M entries).
const MAX_LISTING_BYTES = 256 << 20;

/** The path of the first LFS pointer under `tree` (in `dir`), or undefined when there is none. */
export async function findLfsPointer(dir: string, tree: string): Promise<string | undefined> {
  const listing = await runGit(['ls-tree', '-r', '-l', '-z', '--full-tree', tree], { env: { GIT_DIR: dir }, maxStdoutBytes: MAX_LISTING_BYTES });
  const candidates: { oid: string; path: string }[] = [];
  for (const record of listing.stdout.toString().split('\0')) {
    const tab = record.indexOf('\t');
    if (tab < 0) continue;
    const [, type, oid = '', size = ''] = record.slice(0, tab).split(/ +/);
    if (type === 'blob' && Number(size) < MAX_LFS_POINTER) candidates.push({ oid, path: record.slice(tab + 1) });
  }
  if (candidates.length === 0) return undefined;
  const batch = await runGit(['cat-file', '--batch'], {
    env: { GIT_DIR: dir },
    stdin: candidates.map((c) => `${c.oid}\n`).join(''),
    maxStdoutBytes: candidates.length * (MAX_LFS_POINTER + 128),
  });
  const out = batch.stdout;
  let at = 0;
  for (const candidate of candidates) {
    const newline = out.indexOf(0x0a, at);
    const size = Number(out.subarray(at, newline).toString().split(' ')[2]);
    const content = out.subarray(newline + 1, newline + 1 + size).toString();
    at = newline + 1 + size + 1;
    if (parseLfsPointer(content)) return candidate.path;
  }
  return undefined;
}
