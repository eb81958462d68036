// What a Node process started with `--inspect=127.0.0.1:<port>` is doing, read through the DevTools protocol:
// its live heap (a full garbage collection, then the V8 heap in use; RSS alone says little of a process whose
// V8 collects lazily while memory is plentiful), a heap snapshot, and a CPU profile of a stretch of work. The
// files open in Chrome DevTools (Memory and Performance tabs).
import { createWriteStream, writeFileSync } from 'node:fs';

interface Reply {
  readonly id?: number;
  readonly method?: string;
  readonly params?: { readonly chunk?: string };
  readonly result?: Record<string, unknown>;
  readonly error?: { readonly message: string };
}

/** One DevTools protocol connection to a process's inspector. */
class InspectorSession {
  readonly #socket: WebSocket;
  readonly #pending = new Map<number, { resolve: (value: Record<string, unknown>) => void; reject: (err: Error) => void }>();
  #next = 0;
  /** Where `HeapProfiler.addHeapSnapshotChunk` events go while a snapshot is taken. */
  onChunk: ((chunk: string) => void) | undefined;

  private constructor(socket: WebSocket) {
    this.#socket = socket;
    socket.addEventListener('message', (event) => {
      const reply = JSON.parse(String(event.data)) as Reply;
      if (reply.method === 'HeapProfiler.addHeapSnapshotChunk') this.onChunk?.(reply.params?.chunk ?? '');
      const waiter = reply.id !== undefined ? this.#pending.get(reply.id) : undefined;
      if (!waiter) return;
      this.#pending.delete(reply.id!);
      if (reply.error) waiter.reject(new Error(reply.error.message));
      else waiter.resolve(reply.result ?? {});
    });
  }

  static async open(inspectPort: number): Promise<InspectorSession> {
    const targets = (await (await fetch(`http://127.0.0.1:${inspectPort}/json/list`)).json()) as { webSocketDebuggerUrl: string }[];
    const url = targets[0]?.webSocketDebuggerUrl;
    if (!url) throw new Error(`no inspector target on port ${inspectPort}`);
    const socket = new WebSocket(url);
    await new Promise((resolve, reject) => {
      socket.addEventListener('open', resolve, { once: true });
      socket.addEventListener('error', () => reject(new Error(`could not connect to the inspector at ${url}`)), { once: true });
    });
    return new InspectorSession(socket);
  }

  call(method: string, params: Record<string, unknown> = {}): Promise<Record<string, unknown>> {
    return new Promise((resolve, reject) => {
      const id = ++this.#next;
      this.#pending.set(id, { resolve, reject });
      this.#socket.send(JSON.stringify({ id, method, params }));
    });
  }

  close(): void {
    this.#socket.close();
  }
}

/** The heap in use after a full GC, in bytes; with `snapshotPath`, a heap snapshot written there too. */
export async function liveHeap(inspectPort: number, snapshotPath?: string): Promise<number> {
  const session = await InspectorSession.open(inspectPort);
  try {
    await session.call('HeapProfiler.enable');
    await session.call('HeapProfiler.collectGarbage');
    const { usedSize } = (await session.call('Runtime.getHeapUsage')) as { usedSize: number };
    if (snapshotPath) {
      const file = createWriteStream(snapshotPath);
      session.onChunk = (chunk) => file.write(chunk);
      await session.call('HeapProfiler.takeHeapSnapshot', { reportProgress: false });
      await new Promise((resolve) => file.end(resolve));
    }
    return usedSize;
  } finally {
    session.close();
  }
}

/** Profiles the process's CPU while `work` runs and writes the profile (`.cpuprofile`) to `path`. */
export async function cpuProfile<T>(inspectPort: number, path: string, work: () => Promise<T>): Promise<T> {
  const session = await InspectorSession.open(inspectPort);
  try {
    await session.call('Profiler.enable');
    await session.call('Profiler.setSamplingInterval', { interval: 200 });
    await session.call('Profiler.start');
    const result = await work();
    const { profile } = await session.call('Profiler.stop');
    writeFileSync(path, JSON.stringify(profile));
    return result;
  } finally {
    session.close();
  }
}
