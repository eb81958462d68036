// Commits as the JSON API shows them, read with `git log` in one NUL-separated format: a message may hold any
// text (newlines, tabs, lines that look like headers), but never a NUL, so NUL is the only safe separator.
import { runGitCapped } from './capped-output.ts';
import { trimTrailing } from '../../../src/text/trim.ts';

/** A person and time on a commit; `date` is git's strict ISO 8601 with the original offset. */
export interface Signature {
  readonly name: string;
  readonly email: string;
  readonly date: string;
}

/** One commit: `subject` is the first paragraph (lines joined by spaces, as git shows it), `body` the rest. */
export interface CommitInfo {
  readonly sha: string;
  readonly parents: string[];
  readonly author: Signature;
  readonly committer: Signature;
  readonly subject: string;
  readonly body: string;
}

const FIELDS = ['%H', '%P', '%an', '%ae', '%aI', '%cn', '%ce', '%cI', '%s', '%b'] as const;
/** Each field ends with a NUL; with `-z` git ends each commit with one more. */
export const LOG_FORMAT = `--format=${FIELDS.map((f) => `${f}%x00`).join('')}`;
const OID = /^[0-9a-f]{40}([0-9a-f]{24})?$/;

/**
 * The commits in `git log -z LOG_FORMAT` output, in order. A record cut short (output stopped at a byte budget)
 * is left out, so the answer is always whole commits.
 */
export function parseCommitLog(output: Buffer | string): CommitInfo[] {
  const tokens = output.toString('utf8').split('\0');
  // What follows the last NUL is an unfinished field (or nothing): never part of a whole record.
  tokens.pop();
  const commits: CommitInfo[] = [];
  const size = FIELDS.length + 1;
  for (let i = 0; i + size <= tokens.length; i += size) {
    const [sha = '', parents = '', an = '', ae = '', ad = '', cn = '', ce = '', cd = '', subject = '', body = '', end] = tokens.slice(i, i + size);
    if (!OID.test(sha) || end !== '') throw new Error(`unexpected git log output at commit ${commits.length}`);
    commits.push({
      sha,
      parents: parents === '' ? [] : parents.split(' '),
      author: { name: an, email: ae, date: ad },
      committer: { name: cn, email: ce, date: cd },
      subject,
      body: trimTrailing(body, '\n'),
    });
  }
  return commits;
}

export interface LogOptions {
  /** Revisions and ranges git log walks (already resolved or checked: never an option). */
  readonly revisions: readonly string[];
  /** Only commits touching this path (taken literally, no globs). */
  readonly path?: string | undefined;
  readonly skip?: number;
  /** At most this many commits. */
  readonly limit: number;
  /** Output beyond this stops git; the commits read whole until then are answered. Default 8 MiB. */
  readonly maxBytes?: number;
  readonly signal?: AbortSignal | undefined;
}

/** `git log` over `revisions`, newest first; `cut` when the byte budget ended the listing before `limit`. */
export async function logCommits(dir: string, options: LogOptions): Promise<{ commits: CommitInfo[]; cut: boolean }> {
  const args = ['--literal-pathspecs', '-C', dir, 'log', '-z', LOG_FORMAT, `--max-count=${options.limit}`];
  if (options.skip) args.push(`--skip=${options.skip}`);
  args.push('--end-of-options', ...options.revisions, '--');
  if (options.path) args.push(options.path);
  const { stdout, truncated } = await runGitCapped(args, { maxBytes: options.maxBytes ?? 8 << 20, signal: options.signal });
  return { commits: parseCommitLog(stdout), cut: truncated };
}
