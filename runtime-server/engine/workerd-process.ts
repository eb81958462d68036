import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { createInterface } from 'node:readline';
import type { RuntimeLogger } from '../../src/runtime-contract/log.ts';
import { IsolateMemory } from './isolate-memory.ts';
import { LineAllowance } from './line-allowance.ts';

export interface StartWorkerdOptions {
  readonly binary: string;
  readonly configPath: string;
  readonly experimental: boolean;
  /** Socket names that must all be listening before the process counts as started. */
  readonly sockets: Iterable<string>;
  readonly startTimeoutMs: number;
  readonly log: RuntimeLogger;
  /** V8 traces its garbage collections (`GC_TRACE_FLAGS`): the process keeps what each isolate holds (`isolateMemory`). */
  readonly gcTrace?: boolean;
  /** workerd's limit on open files (RLIMIT_NOFILE, soft and hard). Default: {@link workerdOpenFiles}. */
  readonly openFiles?: number | undefined;
}

/**
 * workerd's whole environment: nothing of the runtime process's (no bucket keys, no KUBECONFIG, no token
 * paths of a cloud's identity). workerd reads its config file and nothing else; apps reach only their bindings.
 */
export const WORKERD_ENV: Readonly<Record<string, string>> = Object.freeze({ TZ: 'UTC' });

/** workerd exited or timed out before listening; `output` is the tail of what it printed. */
export class WorkerdStartError extends Error {
  override readonly name = 'WorkerdStartError';
  readonly output: string;
  /**
   * workerd exited on its own with an error code: it refused its configuration (a worker that does not
   * load). `false` for what says nothing about the workers it was given: it could not be run, was killed
   * (the OOM killer, say), or did not listen in time on a machine too busy.
   */
  readonly refusedConfig: boolean;
  constructor(message: string, output: string, refusedConfig = false) {
    super(output ? `${message}: ${output}` : message);
    this.output = output;
    this.refusedConfig = refusedConfig;
  }
}

const OUTPUT_TAIL = 16 * 1024;

// workerd does not notice its parent dying; kill what is still running when this process exits. A process
// killed outright (SIGKILL, a test worker ended by its runner) runs no exit handler: for that, workerd is
// started under util-linux's `setpriv --pdeathsig KILL`, which has the kernel kill it when its parent dies
// (setpriv execs workerd, so the pid is workerd's). Where there is no setpriv, the exit handler is all there is.
const running = new Set<ChildProcess>();
const SETPRIV = ['/usr/bin/setpriv', '/bin/setpriv'].find((path) => existsSync(path));
// V8 prints its trace of each garbage collection through C's stdio, which buffers a pipe 4 KiB at a time: the
// runtime would read each isolate's memory (`isolate-memory.ts`) late, cut mid-line, and a killed workerd's last
// block never. coreutils' `stdbuf -oL` has stdio flush each line (it execs workerd, whose pid stays the child's).
const STDBUF = ['/usr/bin/stdbuf', '/bin/stdbuf'].find((path) => existsSync(path));

// workerd's limit on open files is set, not inherited: each socket an app holds open (a `connect()`, a `fetch()`)
// is one of workerd's descriptors, and no bound counts them (docs/runtime.md, "Outbound sockets"). Out of
// descriptors workerd crashes, laid on nobody (found in review-183 at ~19k, this machine's limit); the limit a
// container gives varies (1,024 in some, 2^20 in others). So workerd gets as many as the runtime may give
// (its hard limit, at most 2^20): an app holding that many reaches its shard's memory bound (a stop without
// the crash's back-off) well before. util-linux's `prlimit` sets it and execs the rest (the pid stays workerd's).
const PRLIMIT = ['/usr/bin/prlimit', '/bin/prlimit'].find((path) => existsSync(path));
const MAX_OPEN_FILES = 1 << 20;

/**
 * The open files workerd is given: this process's hard limit (`/proc/self/limits`), at most 2^20, or undefined
 * where it cannot be read (workerd then inherits this process's).
 */
export function workerdOpenFiles(limits = readProcLimits()): number | undefined {
  const line = limits?.split('\n').find((l) => l.startsWith('Max open files'));
  const hard = line?.slice('Max open files'.length).trim().split(/\s+/)[1];
  if (hard === 'unlimited') return MAX_OPEN_FILES;
  const value = Number(hard);
  return hard !== undefined && Number.isSafeInteger(value) && value > 0 ? Math.min(value, MAX_OPEN_FILES) : undefined;
}

function readProcLimits(): string | undefined {
  try {
    return readFileSync('/proc/self/limits', 'utf8');
  } catch {
    return undefined;
  }
}

/**
 * The command line that runs `binary` with `args`, tied to this process's life where the system allows, with
 * `openFiles` as its limit on open files (where `prlimit` is there to set it).
 */
export function workerdCommand(binary: string, args: readonly string[], openFiles: number | undefined): [string, string[]] {
  const run = STDBUF ? [STDBUF, '-oL', binary, ...args] : [binary, ...args];
  const line = PRLIMIT && openFiles !== undefined ? [PRLIMIT, `--nofile=${openFiles}:${openFiles}`, '--', ...run] : run;
  return SETPRIV ? [SETPRIV, ['--pdeathsig', 'KILL', '--', ...line]] : [line[0]!, line.slice(1)];
}
process.once('exit', () => {
  for (const child of running) child.kill('SIGKILL');
});

/** One `workerd serve` process. */
export class WorkerdProcess {
  readonly pid: number;
  /** Settles when the process has exited, for whatever reason, and its output has been read to the end. */
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** What each isolate held after its last garbage collection, when V8 traces them (`gcTrace`). */
  readonly isolateMemory: IsolateMemory | undefined;
  #child: ChildProcess;
  #tail = '';
  #hasExited = false;

  private constructor(child: ChildProcess, log: RuntimeLogger, gcTraceDir: string | undefined) {
    this.#child = child;
    this.pid = child.pid ?? -1;
    const memory = gcTraceDir === undefined ? undefined : new IsolateMemory(this.pid, gcTraceDir);
    this.isolateMemory = memory;
    running.add(child);
    child.once('exit', () => {
      running.delete(child);
      this.#hasExited = true;
    });
    // 'close' comes after the output streams end, so `output()` then holds workerd's last words (a fatal error).
    this.exited = new Promise((resolve) => child.once('close', (code, signal) => resolve({ code, signal })));
    const allowance = new LineAllowance();
    const forward = (stream: NodeJS.ReadableStream | null, level: 'info' | 'warn') => {
      if (!stream) return;
      createInterface({ input: stream, crlfDelay: Infinity }).on('line', (line) => {
        if (memory?.take(line)) return; // V8's trace, for the runtime: not a log line, nor last words
        this.#tail = (this.#tail + line + '\n').slice(-OUTPUT_TAIL);
        const { log: logged, leftOut } = allowance.take();
        if (leftOut > 0) log.warn('workerd printed more lines than the log takes; left out', { source: 'workerd', pid: this.pid, lines: leftOut });
        if (logged) log[level](line, { source: 'workerd', pid: this.pid });
      });
    };
    forward(child.stdout, 'info');
    forward(child.stderr, 'warn');
  }

  /**
   * Starts workerd and resolves once every socket in `options.sockets` listens (workerd reports each on
   * its `--control-fd`, after loading every worker). Rejects with `WorkerdStartError` if workerd exits
   * first (a worker failed to load) or takes longer than `startTimeoutMs`; the process is then killed.
   */
  static async start(options: StartWorkerdOptions): Promise<WorkerdProcess> {
    const args = ['serve', options.configPath, 'config', '--control-fd=3', ...(options.experimental ? ['--experimental'] : [])];
    const [command, commandArgs] = workerdCommand(options.binary, args, options.openFiles ?? workerdOpenFiles());
    // Its working directory is its own (the generation's): V8 writes its event logs there (`isolate-code.ts`).
    const cwd = dirname(options.configPath);
    const child = spawn(command, commandArgs, { stdio: ['ignore', 'pipe', 'pipe', 'pipe'], env: WORKERD_ENV, cwd });
    const proc = new WorkerdProcess(child, options.log, options.gcTrace ? cwd : undefined);
    const pending = new Set(options.sockets);
    const control = child.stdio[3];
    let timer: NodeJS.Timeout | undefined;
    try {
      await new Promise<void>((resolve, reject) => {
        if (!control) return reject(new WorkerdStartError('workerd has no control pipe', ''));
        createInterface({ input: control as NodeJS.ReadableStream }).on('line', (line) => {
          const event = parseControl(line);
          if (event?.event === 'listen' && typeof event.socket === 'string') pending.delete(event.socket);
          if (pending.size === 0) resolve();
        });
        if (pending.size === 0) resolve();
        child.once('error', (err) => reject(new WorkerdStartError(`cannot run workerd: ${err.message}`, '')));
        void proc.exited.then(({ code, signal }) => {
          // Let the output streams drain so the error carries workerd's explanation.
          const refused = signal === null && code !== 0;
          setTimeout(() => reject(new WorkerdStartError(`workerd exited (${signal ?? `code ${code}`}) while starting`, proc.output().trim(), refused)), 20);
        });
        timer = setTimeout(() => reject(new WorkerdStartError(`workerd did not listen within ${options.startTimeoutMs} ms`, proc.output().trim())), options.startTimeoutMs);
      });
    } catch (err) {
      proc.kill();
      throw err;
    } finally {
      clearTimeout(timer);
    }
    return proc;
  }

  get running(): boolean {
    return !this.#hasExited;
  }

  /** The last lines workerd printed (stdout and stderr). */
  output(): string {
    return this.#tail;
  }

  /** SIGKILL now. */
  kill(): void {
    if (!this.#hasExited) this.#child.kill('SIGKILL');
  }

  /** SIGTERM, then SIGKILL after `graceMs`; resolves when the process is gone. */
  async stop(graceMs = 5000): Promise<void> {
    if (this.#hasExited) return;
    this.#child.kill('SIGTERM');
    const timer = setTimeout(() => this.kill(), graceMs);
    await this.exited;
    clearTimeout(timer);
  }
}

function parseControl(line: string): { event?: unknown; socket?: unknown } | undefined {
  try {
    return JSON.parse(line) as { event?: unknown; socket?: unknown };
  } catch {
    return undefined;
  }
}
