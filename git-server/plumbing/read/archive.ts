// Repository archives, made by `git archive` itself so a download is byte for byte what `git archive` gives a user
// on a clone of the same commit (git's own gzip for tar.gz, its own zip writer), streamed, never held in memory.
import type { Writable } from 'node:stream';
import { runGit } from '../../../src/git/run-git.ts';

/** The archive formats served; each is a `git archive --format` of the same name. */
export const ARCHIVE_FORMATS = ['tar.gz', 'zip'] as const;
export type ArchiveFormat = (typeof ARCHIVE_FORMATS)[number];

export interface ArchiveRequest {
  /** The bare repository directory. */
  readonly dir: string;
  /** A full commit id (resolved beforehand: see `resolveCommit`). */
  readonly commit: string;
  readonly format: ArchiveFormat;
  /** Prepended to every path, as `git archive --prefix` does (`name-abc1234/`); empty for none. */
  readonly prefix: string;
}

/** The exact command: `git archive --format=<format> --prefix=<prefix> <commit>`, run in `dir`. */
export function archiveArgs(request: ArchiveRequest): string[] {
  return ['-C', request.dir, 'archive', `--format=${request.format}`, `--prefix=${request.prefix}`, '--end-of-options', request.commit];
}

/**
 * Writes the archive to `out` with backpressure (without ending it) and resolves when git has exited. Rejects with
 * `GitCommandError` when git fails or `out` fails (git is then killed), or when `signal` aborts.
 */
export async function writeArchive(request: ArchiveRequest, out: Writable, signal?: AbortSignal): Promise<void> {
  await runGit(archiveArgs(request), { stdout: out, ...(signal ? { signal } : {}) });
}

/** Answers of {@link dependsOnRefs} by commit: a commit's tree never changes, so neither does the answer. */
const refDependence = new Map<string, boolean>();
const REF_DEPENDENCE_KEPT = 10_000;

/**
 * Whether `git archive` of `commit` depends on more than the commit: a file marked `export-subst` in a
 * `.gitattributes` of its tree has placeholders expanded (`$Format:%D$`, `%(describe)`) against the refs of the
 * repository it is made in, so two repositories holding the commit, or one before and after a new tag, make different
 * bytes. cw-git writes no `info/attributes`, so the tree's own files are all that decide it.
 */
export async function dependsOnRefs(dir: string, commit: string): Promise<boolean> {
  const known = refDependence.get(commit);
  if (known !== undefined) return known;
  // `commit` is a resolved object id (git grep of this git takes no --end-of-options before a revision).
  const found = await runGit(['-C', dir, 'grep', '-q', '-F', '-e', 'export-subst', commit, '--', ':(glob)**/.gitattributes'], { okCodes: [0, 1] });
  const depends = found.code === 0;
  if (refDependence.size >= REF_DEPENDENCE_KEPT) refDependence.delete(refDependence.keys().next().value!);
  refDependence.set(commit, depends);
  return depends;
}
