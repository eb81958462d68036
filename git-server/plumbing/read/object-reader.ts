// One long-lived `git cat-file --batch-command --buffer` over a bare repository: object reads (`info`: type and
// size; `contents`: the bytes) answered over its stdin and stdout instead of a process per read. Spawning git
// blocks Node's event loop for milliseconds in a large process; a warm cat-file answers in microseconds.
//
// Commands are written in batches, each ended by `flush`, and git answers them in order, so one FIFO of pending
// commands matches answers to callers. git re-scans its packs when an object is missing, so objects pushed after
// the process started are found; a copy deleted and re-created must get a new reader (see object-readers.ts).
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import type { Socket } from 'node:net';
import { GitCommandError, SERVICE_GIT_ENV, STDERR_KEPT, stderrSummary } from '../../../src/git/run-git.ts';

export type ObjectType = 'blob' | 'tree' | 'commit' | 'tag';

export interface ObjectInfo {
  readonly oid: string;
  readonly type: ObjectType;
  readonly size: number;
}

/** An object's header and bytes. */
export interface ObjectContents extends ObjectInfo {
  readonly bytes: Buffer;
}

/** A `contents` read of an object larger than the caller's bound: its bytes were skipped, not kept. */
export class ObjectTooLargeError extends Error {
  override readonly name = 'ObjectTooLargeError';
  readonly info: ObjectInfo;
  readonly maxBytes: number;
  constructor(info: ObjectInfo, maxBytes: number) {
    super(`git cat-file: object ${info.oid} is ${info.size} bytes, more than ${maxBytes}`);
    this.info = info;
    this.maxBytes = maxBytes;
  }
}

interface Pending {
  readonly kind: 'info' | 'contents';
  /** `contents` only: bytes kept at most (more are skipped and the read fails). */
  readonly maxBytes: number;
  readonly resolve: (answer: ObjectInfo | ObjectContents | undefined) => void;
  readonly reject: (error: Error) => void;
}

/** An object's bytes being read: how many are still expected (content plus the closing LF), and where they go. */
interface Body {
  readonly info: ObjectInfo;
  left: number;
  /** Undefined: the object is larger than asked for, its bytes are skipped. */
  readonly chunks: Buffer[] | undefined;
  readonly maxBytes: number;
}

const HEADER = /^([0-9a-f]{40,64}) (blob|tree|commit|tag) (\d+)$/;
const COMMAND = 'git cat-file';

export class ObjectReader {
  readonly dir: string;
  /** When the reader was last asked something (ms since the epoch): the pool closes idle ones. */
  lastUsedMs = Date.now();
  readonly #child: ChildProcessWithoutNullStreams;
  readonly #queue: Pending[] = [];
  /** Index of the first unanswered command in `#queue` (shifting an array per answer is quadratic). */
  #head = 0;
  #ended = false;
  #failure: Error | undefined;
  #stderr = '';
  /** Unparsed stdout. */
  #buffered: Buffer[] = [];
  #bufferedBytes = 0;
  /** The body being read. */
  #body: Body | undefined;

  /** Starts `git cat-file` in `dir`; `onExit` is called once when the process is gone. */
  constructor(dir: string, options: { git?: string; onExit?: (reader: ObjectReader) => void } = {}) {
    this.dir = dir;
    this.#child = spawn(options.git ?? 'git', ['-C', dir, 'cat-file', '--batch-command', '--buffer'], { stdio: ['pipe', 'pipe', 'pipe'], env: { ...process.env, ...SERVICE_GIT_ENV } });
    this.#child.stdout.on('data', (chunk: Buffer) => this.#receive(chunk));
    this.#child.stderr.setEncoding('utf8');
    this.#child.stderr.on('data', (chunk: string) => {
      if (this.#stderr.length < STDERR_KEPT) this.#stderr += chunk.slice(0, STDERR_KEPT - this.#stderr.length);
    });
    // A dead process makes writes fail with EPIPE; its exit (below) is what callers hear about.
    this.#child.stdin.on('error', () => {});
    this.#child.once('error', (error) => this.#fail(new GitCommandError(COMMAND, null, `could not run: ${error.message}`)));
    this.#child.once('close', (code, signal) => {
      const how = code === null ? `was killed by ${signal}` : `exited with code ${code}`;
      const summary = stderrSummary(this.#stderr);
      this.#fail(new GitCommandError(COMMAND, code, `${how}${summary ? `: ${summary}` : ''}`, this.#stderr));
      options.onExit?.(this);
    });
    this.#keepAlive(false);
  }

  /** Commands written and not yet answered. */
  get pending(): number {
    return this.#queue.length - this.#head;
  }

  /** Whether the reader takes new commands (not closed, process alive). */
  get usable(): boolean {
    return !this.#ended && this.#failure === undefined;
  }

  /** The process id, for tests. */
  get pid(): number | undefined {
    return this.#child.pid;
  }

  /** Type, size and full id of each of `names` (any name cat-file takes: `<oid>`, `<rev>^{tree}`, `<rev>:<path>`); undefined for a missing or ambiguous one. */
  info(names: readonly string[]): Promise<(ObjectInfo | undefined)[]> {
    if (names.length === 0) return Promise.resolve([]);
    return Promise.all(this.#send(names.map((name) => ({ kind: 'info' as const, name, maxBytes: 0 })))) as Promise<(ObjectInfo | undefined)[]>;
  }

  /** The object `name` names with its bytes, or undefined when missing. Rejects with `ObjectTooLargeError` past `maxBytes`. */
  async contents(name: string, maxBytes: number): Promise<ObjectContents | undefined> {
    const [answer] = this.#send([{ kind: 'contents', name, maxBytes }]);
    return (await answer) as ObjectContents | undefined;
  }

  /** Ends git's input: commands already written are still answered, then the process exits. */
  close(): void {
    if (this.#ended) return;
    this.#ended = true;
    this.#child.stdin.end();
  }

  /** Kills the process (tests: a reader that dies). */
  kill(): void {
    this.#child.kill('SIGKILL');
  }

  #send(commands: readonly { kind: Pending['kind']; name: string; maxBytes: number }[]): Promise<ObjectInfo | ObjectContents | undefined>[] {
    this.lastUsedMs = Date.now();
    const failure = this.#failure ?? (this.#ended ? new GitCommandError(COMMAND, null, 'was closed') : undefined);
    // A name with a line feed would be read as two commands and shift every answer after it.
    const bad = commands.find((c) => c.name.includes('\n') || c.name.length === 0);
    if (failure || bad) {
      const error = failure ?? new GitCommandError(COMMAND, null, `cannot ask for ${JSON.stringify(bad?.name)}`);
      return commands.map(() => Promise.reject(error));
    }
    if (this.pending === 0) this.#keepAlive(true);
    const answers = commands.map(
      ({ kind, maxBytes }) =>
        new Promise<ObjectInfo | ObjectContents | undefined>((resolve, reject) => {
          this.#queue.push({ kind, maxBytes, resolve, reject });
        }),
    );
    this.#child.stdin.write(`${commands.map((c) => `${c.kind} ${c.name}\n`).join('')}flush\n`);
    return answers;
  }

  #receive(chunk: Buffer): void {
    this.#buffered.push(chunk);
    this.#bufferedBytes += chunk.length;
    try {
      this.#parse();
    } catch (error) {
      // Output that is not what cat-file writes: nothing after it can be matched to a command any more.
      this.#fail(error instanceof Error ? error : new Error(String(error)));
      this.#child.kill('SIGKILL');
    }
  }

  #parse(): void {
    for (;;) {
      if (this.#body) {
        if (!this.#takeBody(this.#body)) return;
        continue;
      }
      const data = this.#joined();
      const lf = data.indexOf(0x0a);
      if (lf === -1) return;
      const line = data.subarray(0, lf).toString();
      this.#keep(data.subarray(lf + 1));
      const pending = this.#queue[this.#head];
      if (!pending) throw new GitCommandError(COMMAND, null, `answered more than was asked: ${JSON.stringify(line.slice(0, 100))}`);
      const match = HEADER.exec(line);
      if (!match) {
        if (!line.endsWith(' missing') && !line.endsWith(' ambiguous')) throw new GitCommandError(COMMAND, null, `answered ${JSON.stringify(line.slice(0, 100))}`);
        this.#answer(undefined);
        continue;
      }
      const info: ObjectInfo = { oid: match[1] as string, type: match[2] as ObjectType, size: Number(match[3]) };
      if (pending.kind === 'info') {
        this.#answer(info);
        continue;
      }
      this.#body = { info, left: info.size + 1, chunks: info.size <= pending.maxBytes ? [] : undefined, maxBytes: pending.maxBytes };
    }
  }

  /** Moves buffered bytes into the body being read; true once it is complete (and answered). */
  #takeBody(body: Body): boolean {
    const data = this.#joined();
    const take = Math.min(body.left, data.length);
    // The closing LF is not content.
    const content = data.subarray(0, Math.min(take, body.left - 1));
    if (body.chunks && content.length > 0) body.chunks.push(content);
    if (take === body.left && data[take - 1] !== 0x0a) throw new GitCommandError(COMMAND, null, `answered ${body.info.oid} without its closing line feed`);
    body.left -= take;
    this.#keep(data.subarray(take));
    if (body.left > 0) return false;
    this.#body = undefined;
    if (body.chunks) this.#answer({ ...body.info, bytes: body.chunks.length === 1 ? (body.chunks[0] as Buffer) : Buffer.concat(body.chunks) });
    else this.#reject(new ObjectTooLargeError(body.info, body.maxBytes));
    return true;
  }

  #joined(): Buffer {
    if (this.#buffered.length !== 1) this.#buffered = [Buffer.concat(this.#buffered, this.#bufferedBytes)];
    return this.#buffered[0] as Buffer;
  }

  #keep(rest: Buffer): void {
    this.#buffered = rest.length > 0 ? [rest] : [];
    this.#bufferedBytes = rest.length;
  }

  #next(): Pending {
    const pending = this.#queue[this.#head] as Pending;
    this.#head++;
    if (this.#head === this.#queue.length) {
      this.#queue.length = 0;
      this.#head = 0;
      this.#keepAlive(false);
    }
    return pending;
  }

  /** An idle reader must not keep Node running (like an unref'd timer); one with answers to wait for must. */
  #keepAlive(on: boolean): void {
    for (const handle of [this.#child, this.#child.stdin as unknown as Socket, this.#child.stdout as unknown as Socket, this.#child.stderr as unknown as Socket]) {
      if (on) handle.ref();
      else handle.unref();
    }
  }

  #answer(answer: ObjectInfo | ObjectContents | undefined): void {
    this.#next().resolve(answer);
  }

  #reject(error: Error): void {
    this.#next().reject(error);
  }

  #fail(error: Error): void {
    this.#failure ??= error;
    this.#body = undefined;
    while (this.pending > 0) this.#reject(this.#failure);
  }
}
