// The local build runner: the builder script as a child process of the operator, for `make dev` and the faster
// tests, where there is no node to run a Job on. Same inputs and outputs as a Job (the presigned URLs, the
// command, the environment); bounded by a deadline (the process group is killed), CPU time and file size
// (rlimits), memory (the resident set of its processes, read from /proc every half second) and the workspace's
// size (every few seconds). Where the machine allows it, the build runs in a PID namespace of its own, so no
// process it starts outlives it (one that left the process group with `setsid` included). What it does not
// isolate, unlike a Job's sandbox: the build runs as the operator's user, sees the operator's filesystem and
// network, and shares its machine. docs/push-to-deploy.md says so.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { constants } from 'node:os';
import { mkdir, readdir, readFile, rm } from 'node:fs/promises';
import { realpathSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { execFile } from 'node:child_process';
import { BUILDER_ENV, BUILDER_EXIT, BUILDER_SCRIPT } from './builder-script.ts';
import type { BuildRunner, BuildRunSpec, RunEvents, RunFailureReason, RunResult } from './build-runner.ts';

const MEMORY_CHECK_MS = 500;
const DISK_CHECK_MS = 3000;
const PAGE_BYTES = 4096;

interface Running {
  readonly child: ChildProcess;
  /** Why the runner killed it, when it did. */
  killed?: RunResult;
}

export class LocalBuildRunner implements BuildRunner {
  readonly kind = 'local';
  readonly #workDir: string;
  readonly #running = new Map<string, Running>();
  /** Whether builds run in a PID namespace of their own (else a process that leaves their group outlives them). */
  readonly contained: boolean;
  readonly #namespace: readonly string[];

  constructor(options: { workDir: string }) {
    this.#workDir = options.workDir;
    this.#namespace = pidNamespace();
    this.contained = this.#namespace.length > 0;
  }

  async run(spec: BuildRunSpec, events: RunEvents): Promise<void> {
    if (this.#running.has(spec.id)) return; // already going: its events are the first caller's
    const workspace = join(this.#workDir, 'builds', spec.id);
    await rm(workspace, { recursive: true, force: true });
    await mkdir(join(workspace, 'tmp'), { recursive: true });
    const nodeDir = dirname(realpathSync(process.execPath));
    const env: Record<string, string> = {
      ...spec.environment,
      PATH: `${nodeDir}:/usr/local/bin:/usr/bin:/bin`,
      LANG: 'C.UTF-8',
      TMPDIR: join(workspace, 'tmp'),
      [BUILDER_ENV.sourceUrl]: spec.sourceUrl,
      [BUILDER_ENV.outputUrl]: spec.outputUrl,
      [BUILDER_ENV.outputDirectory]: spec.outputDirectory,
      [BUILDER_ENV.workspace]: workspace,
      ...(spec.command ? { [BUILDER_ENV.command]: spec.command } : {}),
    };
    const cpuSeconds = Math.max(1, Math.ceil((spec.limits.deadlineSeconds * spec.limits.cpuMillis) / 1000));
    // The hard CPU limit a little past the soft one: SIGXCPU (a limit the result names) comes before SIGKILL.
    const limits = [`--cpu=${cpuSeconds}:${cpuSeconds + 5}`, `--fsize=${spec.limits.diskBytes}`, '--nofile=4096', '--core=0'];
    // setpriv: the build dies with the operator; the namespace (when there is one): everything the build starts
    // dies with it; prlimit: the rlimits; its own process group, killed whole. In the namespace a shell is its
    // first process, since the first process of a PID namespace ignores signals such as SIGXCPU: it reports the
    // builder's end as an exit status (128 + the signal's number when one ended it).
    const builder = ['prlimit', ...limits, '--', process.execPath, '-e', BUILDER_SCRIPT];
    const contained = this.contained ? [...this.#namespace, 'sh', '-c', '"$@"; exit $?', 'sh', ...builder] : builder;
    const child = spawn('setpriv', ['--pdeathsig', 'KILL', '--', ...contained], {
      cwd: workspace,
      env,
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const running: Running = { child };
    this.#running.set(spec.id, running);
    child.stdout?.setEncoding('utf8').on('data', (text: string) => events.log(text));
    child.stderr?.setEncoding('utf8').on('data', (text: string) => events.log(text));
    const kill = (result: RunResult) => {
      running.killed ??= result;
      killGroup(child);
    };
    const deadline = setTimeout(
      () => kill({ outcome: 'failed', reason: 'DeadlineExceeded', message: `the build ran longer than its deadline of ${spec.limits.deadlineSeconds} s` }),
      spec.limits.deadlineSeconds * 1000,
    );
    const memory = setInterval(() => {
      void residentBytes(child.pid).then((bytes) => {
        if (bytes > spec.limits.memoryBytes) kill({ outcome: 'failed', reason: 'ResourceLimitExceeded', message: `the build used more than its ${mib(spec.limits.memoryBytes)} MiB of memory` });
      });
    }, MEMORY_CHECK_MS);
    const disk = setInterval(() => {
      void directoryBytes(workspace).then((bytes) => {
        if (bytes > spec.limits.diskBytes) kill({ outcome: 'failed', reason: 'ResourceLimitExceeded', message: `the build's workspace grew past its ${mib(spec.limits.diskBytes)} MiB of disk` });
      });
    }, DISK_CHECK_MS);
    child.on('close', (code, signal) => {
      clearTimeout(deadline);
      clearInterval(memory);
      clearInterval(disk);
      this.#running.delete(spec.id);
      void rm(workspace, { recursive: true, force: true }).finally(() => events.finished(running.killed ?? resultOf(code, signal, spec)));
    });
    child.on('error', (err) => kill({ outcome: 'failed', reason: 'RunnerFailed', message: `the build could not start: ${err.message}` }));
  }

  async stop(id: string): Promise<void> {
    const running = this.#running.get(id);
    if (!running) return;
    running.killed ??= { outcome: 'stopped' };
    killGroup(running.child);
  }
}

function killGroup(child: ChildProcess): void {
  if (child.pid === undefined) return;
  try {
    process.kill(-child.pid, 'SIGKILL');
  } catch {
    // already gone
  }
}

const REASONS: Record<number, [RunFailureReason, string]> = {
  [BUILDER_EXIT.sourceUnavailable]: ['SourceUnavailable', 'the source could not be fetched'],
  [BUILDER_EXIT.commandFailed]: ['CommandFailed', 'the build command failed'],
  [BUILDER_EXIT.outputMissing]: ['OutputInvalid', 'the output directory is missing'],
  [BUILDER_EXIT.uploadFailed]: ['RunnerFailed', 'the output could not be uploaded'],
};

function resultOf(exitCode: number | null, exitSignal: NodeJS.Signals | null, spec: BuildRunSpec): RunResult {
  // The namespace's shell reports a builder ended by a signal as 128 + its number.
  const bySignal = exitCode !== null && exitCode > 128 ? (Object.entries(constants.signals).find(([, n]) => n === exitCode - 128)?.[0] as NodeJS.Signals | undefined) : undefined;
  const [code, signal] = bySignal ? [null, bySignal] : [exitCode, exitSignal];
  if (code === 0) return { outcome: 'succeeded' };
  if (signal === 'SIGXCPU') return { outcome: 'failed', reason: 'ResourceLimitExceeded', message: `the build used more CPU time than its bound` };
  if (signal === 'SIGXFSZ') return { outcome: 'failed', reason: 'ResourceLimitExceeded', message: `the build wrote a file larger than its ${mib(spec.limits.diskBytes)} MiB of disk` };
  const known = code === null ? undefined : REASONS[code];
  if (known) return { outcome: 'failed', reason: known[0], message: known[1] };
  return { outcome: 'failed', reason: 'RunnerFailed', message: signal ? `the builder was killed by ${signal}` : `the builder exited with ${code}` };
}

const mib = (bytes: number) => Math.round(bytes / 1024 / 1024);

/**
 * Resident bytes of the build's processes: those in the group led by `pid` (the builder, the shell, npm and its
 * children) and every descendant of `pid`, in a group of its own or not (in the namespace, a process whose parent
 * ended is adopted by the namespace's first process, still a descendant).
 */
async function residentBytes(pid: number | undefined): Promise<number> {
  if (pid === undefined) return 0;
  const processes: { pid: number; ppid: number; pgrp: number; rss: number }[] = [];
  for (const entry of await readdir('/proc').catch(() => [] as string[])) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = await readFile(`/proc/${entry}/stat`, 'utf8').catch(() => '');
    if (!stat) continue;
    // Fields after the command name (which may hold spaces): state ppid pgrp … rss is field 24 (index 21 after it).
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    processes.push({ pid: Number(entry), ppid: Number(fields[1]), pgrp: Number(fields[2]), rss: Number(fields[21] ?? 0) * PAGE_BYTES });
  }
  const build = new Set([pid]);
  // Parents may be listed after their children: repeat until no process joins.
  for (let grew = true; grew;) {
    grew = false;
    for (const p of processes) {
      if (!build.has(p.pid) && (p.pgrp === pid || build.has(p.ppid))) {
        build.add(p.pid);
        grew = true;
      }
    }
  }
  return processes.reduce((sum, p) => sum + (build.has(p.pid) ? p.rss : 0), 0);
}

/**
 * The command that runs a build in a PID namespace of its own, killed whole when its first process ends (with
 * `--kill-child`, when `unshare` itself is killed too): inside a user namespace that maps the operator's user to
 * itself (so even an operator running as root gives its builds no capability over the machine's namespaces: no
 * `nsenter` back out), else, as root where user namespaces are turned off, a PID namespace alone. Empty where
 * neither works.
 */
function pidNamespace(): readonly string[] {
  const pid = ['--pid', '--fork', '--kill-child'];
  for (const command of [
    ['unshare', '--user', '--map-current-user', ...pid],
    ['unshare', ...pid],
  ]) {
    try {
      execFileSync(command[0]!, [...command.slice(1), 'true'], { stdio: 'ignore', timeout: 10_000 });
      return command;
    } catch {
      // the next, or none
    }
  }
  return [];
}

const execFileAsync = promisify(execFile);

async function directoryBytes(dir: string): Promise<number> {
  try {
    const { stdout } = await execFileAsync('du', ['-sb', dir]);
    return Number(stdout.split('\t')[0]);
  } catch {
    return 0;
  }
}
