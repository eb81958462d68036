// Running the real `git` binary: every git process of the repository service (index-pack, upload-pack,
// count-objects, ...) goes through here, so each has a bounded output, a way to be stopped, and one error shape.
import { spawn } from 'node:child_process';
import type { Readable, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';

export interface RunGitOptions {
  /** Working directory (a `-C <dir>` in `args` works as well). */
  readonly cwd?: string;
  /** Added to (and overriding) this process's environment and {@link SERVICE_GIT_ENV}. */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** Fed to git's stdin, then closed. Without it stdin is empty. */
  readonly stdin?: Uint8Array | string | Readable;
  /**
   * Where stdout goes when it should not be collected (upload-pack's answer streamed to a client); the
   * stream is written with backpressure and not ended. Without it stdout is collected, up to `maxStdoutBytes`.
   */
  readonly stdout?: Writable;
  /** Collected stdout beyond this fails the command (the process is killed). Default 16 MiB. */
  readonly maxStdoutBytes?: number;
  /** Exit codes that count as success. Default `[0]`. */
  readonly okCodes?: readonly number[];
  /** Kills the process and every process it started (SIGKILL to its process group) and rejects when aborted. */
  readonly signal?: AbortSignal;
  /** The binary. Default `git` on `PATH`. */
  readonly git?: string;
}

export interface GitResult {
  readonly code: number;
  /** Collected stdout (empty when `stdout` was given). */
  readonly stdout: Buffer;
  /** The first `STDERR_KEPT` bytes of stderr, as text. */
  readonly stderr: string;
}

/** A git command that could not run, exited with a code not in `okCodes`, or wrote too much. */
export class GitCommandError extends Error {
  override readonly name = 'GitCommandError';
  /** `git <subcommand>` as run (arguments after the subcommand are left out: they may be long or private). */
  readonly command: string;
  /** The exit code, or null when the process was killed or never started. */
  readonly code: number | null;
  readonly stderr: string;
  constructor(command: string, code: number | null, detail: string, stderr = '') {
    super(`${command} ${detail}`);
    this.command = command;
    this.code = code;
    this.stderr = stderr;
  }
}

/**
 * What every git process of the service runs with: no system or user configuration, so a host's `~/.gitconfig`
 * (an LFS filter marked required, hooks, fsmonitor) never changes what the service serves (a `git archive` whose
 * smudge filter failed answered a broken zip). The repository's own configuration still applies.
 *
 * And no single allocation over {@link MAX_GIT_ALLOCATION} (git's `GIT_ALLOC_LIMIT`): a pack's delta declares the
 * size of the object it makes, and git allocates it whole to hash it, so a 16 KiB push made index-pack hold 1 GiB,
 * the container's whole memory (found in review). Such a push now fails with "attempting to allocate … over limit".
 */
export const MAX_GIT_ALLOCATION = '256m';
export const SERVICE_GIT_ENV: Readonly<Record<string, string>> = { GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null', GIT_ALLOC_LIMIT: MAX_GIT_ALLOCATION };

const DEFAULT_MAX_STDOUT = 16 << 20;
/** Stderr is for people: the head of it is enough, and a chatty process must not grow our memory. */
export const STDERR_KEPT = 64 << 10;

/** The subcommand of `args`, skipping git's global options (`-C dir`, `-c k=v`, `--git-dir=...`). */
export function gitSubcommand(args: readonly string[]): string {
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] as string;
    if (arg === '-C' || arg === '-c') i++;
    else if (!arg.startsWith('-')) return arg;
  }
  return '';
}

/** The last non-empty line of stderr, trimmed to a readable length: what an error message quotes. */
export function stderrSummary(stderr: string): string {
  const line =
    stderr
      .split('\n')
      .map((l) => l.trim())
      .filter(Boolean)
      .at(-1) ?? '';
  return line.length > 300 ? `${line.slice(0, 300)}…` : line;
}

/**
 * The process groups of git commands running now, killed as this process exits: their members (pack-objects under
 * upload-pack) are in groups of their own and would not get the terminal's signal or notice our end.
 */
const runningGroups = new Set<number>();
let killOnExit = false;

function killGroup(pid: number | undefined): void {
  if (pid === undefined) return;
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    // Already gone.
  }
}

/**
 * Runs `git args...`; resolves when it exits with an ok code, rejects with `GitCommandError` otherwise. Each runs in
 * a process group of its own, so that stopping it (abort, too much output) stops what git started too: an abandoned
 * clone's pack-objects would otherwise go on counting and compressing for minutes after its fetch slot was given back.
 */
export function runGit(args: readonly string[], options: RunGitOptions = {}): Promise<GitResult> {
  const command = `git ${gitSubcommand(args)}`.trimEnd();
  const maxStdout = options.maxStdoutBytes ?? DEFAULT_MAX_STDOUT;
  const okCodes = options.okCodes ?? [0];
  return new Promise((resolve, reject) => {
    if (options.signal?.aborted) return reject(new GitCommandError(command, null, 'was aborted before it started'));
    const child = spawn(options.git ?? 'git', args, {
      cwd: options.cwd,
      env: { ...process.env, ...SERVICE_GIT_ENV, ...options.env },
      stdio: ['pipe', 'pipe', 'pipe'],
      detached: true,
    });
    const group = child.pid;
    if (group !== undefined) {
      runningGroups.add(group);
      if (!killOnExit) {
        killOnExit = true;
        process.once('exit', () => runningGroups.forEach(killGroup));
      }
    }
    const out: Buffer[] = [];
    let outBytes = 0;
    let err = '';
    let failure: GitCommandError | undefined;
    const fail = (e: GitCommandError) => {
      failure ??= e;
      killGroup(group);
    };
    const onAbort = () => fail(new GitCommandError(command, null, 'was aborted'));
    options.signal?.addEventListener('abort', onAbort, { once: true });

    if (options.stdout) {
      pipeline(child.stdout, options.stdout, { end: false }).catch((e: unknown) => fail(new GitCommandError(command, null, `output could not be written: ${String(e)}`)));
    } else {
      child.stdout.on('data', (chunk: Buffer) => {
        outBytes += chunk.byteLength;
        if (outBytes > maxStdout) return fail(new GitCommandError(command, null, `wrote more than ${maxStdout} bytes of output`));
        out.push(chunk);
      });
    }
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (chunk: string) => {
      if (err.length < STDERR_KEPT) err += chunk.slice(0, STDERR_KEPT - err.length);
    });
    // git may exit before reading all of stdin (a bad request): EPIPE is then expected, the exit code tells.
    child.stdin.on('error', () => {});
    const stdin = options.stdin;
    if (stdin === undefined) child.stdin.end();
    else if (typeof stdin === 'string' || stdin instanceof Uint8Array) child.stdin.end(stdin);
    else pipeline(stdin, child.stdin).catch(() => child.stdin.destroy());

    child.once('error', (e: NodeJS.ErrnoException) => fail(new GitCommandError(command, null, `could not run: ${e.message}`)));
    child.once('close', (code, signal) => {
      options.signal?.removeEventListener('abort', onAbort);
      if (group !== undefined) runningGroups.delete(group);
      if (failure) return reject(failure);
      if (code !== null && okCodes.includes(code)) return resolve({ code, stdout: Buffer.concat(out), stderr: err });
      const how = code === null ? `was killed by ${signal}` : `exited with code ${code}`;
      const summary = stderrSummary(err);
      reject(new GitCommandError(command, code, summary ? `${how}: ${summary}` : how, err));
    });
  });
}
