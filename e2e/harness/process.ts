import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream, existsSync, readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { fetch, type Dispatcher } from 'undici';
import { portOwner } from './port-owner.ts';

export { freePort } from './free-port.ts';

/** A child process started by the harness, with its output going to a log file. */
export interface Service {
  readonly name: string;
  readonly child: ChildProcess;
  readonly logPath: string;
  /** SIGTERM, then SIGKILL after `graceMs`; resolves once the process has exited. */
  stop(graceMs?: number): Promise<void>;
}

export interface StartOptions {
  name: string;
  command: string;
  args: string[];
  logPath: string;
  env?: NodeJS.ProcessEnv;
  cwd?: string;
  /**
   * In a process group of its own, so a Ctrl-C at the terminal reaches only the harness, which then stops it
   * in order; it still ends with the harness (parent-death signal) if the harness is killed.
   */
  ownProcessGroup?: boolean;
}

/** Starts a child whose stdout and stderr go to `logPath`. */
export function startService(opts: StartOptions): Service {
  const log = createWriteStream(opts.logPath, { flags: 'a' });
  const [command, args] = opts.ownProcessGroup ? ['setpriv', ['--pdeathsig', 'TERM', '--', opts.command, ...opts.args]] : [opts.command, opts.args];
  const child = spawn(command, args, {
    cwd: opts.cwd,
    env: opts.env ?? process.env,
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: opts.ownProcessGroup ?? false,
  });
  child.stdout?.pipe(log, { end: false });
  child.stderr?.pipe(log, { end: false });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.once('error', (err) => log.write(`spawn error: ${err.message}\n`));
  return {
    name: opts.name,
    child,
    logPath: opts.logPath,
    async stop(graceMs = 10_000) {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGTERM');
        // The grace period is the subject here: a deadline, cleared as soon as the process exits.
        const kill = setTimeout(() => child.kill('SIGKILL'), graceMs);
        await exited;
        clearTimeout(kill);
      }
      log.end();
    },
  };
}

/** Resolves with the first line of output (stdout or stderr) matching `pattern`; rejects if the child exits first or time runs out. */
export function waitForLine(service: Service, pattern: RegExp, timeoutMs: number): Promise<RegExpMatchArray> {
  return new Promise((resolve, reject) => {
    let buffered = '';
    const timer = setTimeout(() => finish(new Error(`${service.name}: not ready within ${timeoutMs} ms (log: ${service.logPath})`)), timeoutMs);
    const onData = (chunk: Buffer) => {
      buffered += chunk.toString('utf8');
      const lines = buffered.split('\n');
      buffered = lines.pop() ?? '';
      for (const line of lines) {
        const match = line.match(pattern);
        if (match) return finish(undefined, match);
      }
    };
    const onExit = (code: number | null) => finish(new Error(`${service.name} exited with ${code} before it was ready (log: ${service.logPath})`));
    function finish(err?: Error, match?: RegExpMatchArray) {
      clearTimeout(timer);
      service.child.stdout?.off('data', onData);
      service.child.stderr?.off('data', onData);
      service.child.off('exit', onExit);
      if (err) reject(err);
      else resolve(match as RegExpMatchArray);
    }
    service.child.stdout?.on('data', onData);
    service.child.stderr?.on('data', onData);
    service.child.once('exit', onExit);
  });
}

/** The port a service was to listen on is another process's: it could not (and a new port may be tried). */
export class PortTakenError extends Error {}

/**
 * Whether `service` failed to start because a port `freePort` picked was taken by another test's process before it
 * listened: PortTakenError from {@link waitForHttp}, or EADDRINUSE in the log of a service that exited.
 */
export function portTaken(err: unknown, service: Service): boolean {
  return err instanceof PortTakenError || (service.child.exitCode !== null && existsSync(service.logPath) && readFileSync(service.logPath, 'utf8').includes('EADDRINUSE'));
}

/**
 * Launches a service on ports `freePort` picked and waits for it (`ready`); a port another test's process took before
 * the service listened ({@link portTaken}) is given up for new ones, twice at most: `discard` forgets the attempt that
 * failed, and `launch` picks new ports. Any other failure is thrown as it is.
 */
export async function onFreePorts<T extends { service: Service }>(launch: () => Promise<T>, ready: (started: T) => Promise<void>, discard: (failed: T) => void | Promise<void>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    const started = await launch();
    try {
      await ready(started);
      return started;
    } catch (err) {
      if (!portTaken(err, started.service) || attempt >= 3) throw err;
      await discard(started);
    }
  }
}

/**
 * Polls `url` until the service answers it with a status below 500, or throws naming the service. The one
 * polling loop of the harness, shared by every service it starts: a port that is not open yet sends no event
 * to wait on, and not every service prints a line when it is ready, so asking every 100 ms is the honest wait.
 * The process exiting ends it at once. An answer counts only from a listener of the service's own process tree
 * (`port-owner.ts`): the port {@link freePort} picked may have been taken by another test's server since, and
 * then the service fails to listen ({@link PortTakenError}) rather than being reported ready.
 */
export async function waitForHttp(service: Service, url: string, timeoutMs: number, dispatcher?: Dispatcher): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  const port = Number(new URL(url).port);
  let taken = false;
  while (Date.now() < deadline) {
    if (service.child.exitCode !== null) {
      const exited = `${service.name} exited with ${service.child.exitCode} (log: ${service.logPath})`;
      throw taken ? new PortTakenError(`${exited}: another process listens on port ${port}`) : new Error(exited);
    }
    try {
      const res = await fetch(url, { signal: AbortSignal.timeout(1000), ...(dispatcher ? { dispatcher } : {}) });
      await res.body?.cancel();
      if (res.status < 500) {
        if (service.child.pid === undefined || portOwner(service.child.pid, port) !== 'another') return;
        taken = true;
      }
    } catch {
      // not listening yet
    }
    await sleep(100);
  }
  throw new Error(`${service.name}: ${url} not answering within ${timeoutMs} ms${taken ? `, port ${port} being another process's` : ''} (log: ${service.logPath})`);
}

/**
 * SIGKILL, as a crash or the OOM killer would: the process gets no chance to clean up. Its own children
 * (cw-runtime's workerd) are killed right after, by pid, as the container runtime would with the container:
 * left alone they would outlive the test.
 */
export async function killHard(service: Service): Promise<void> {
  const pid = service.child.pid;
  let children: number[] = [];
  try {
    children = readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number);
  } catch {
    // already gone
  }
  service.child.kill('SIGKILL');
  for (const child of children) {
    try {
      process.kill(child, 'SIGKILL');
    } catch {
      // exited meanwhile
    }
  }
  await service.stop();
}

/** Whether process `pid` still runs (signal 0 checks without sending anything). */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
