// What a Node process started with `--inspect=127.0.0.1:<port>` holds live: a full garbage collection through
// the DevTools protocol, then the V8 heap in use, and optionally a heap snapshot written to a file (open it in
// Chrome's DevTools Memory tab). RSS alone says little of a process without a heap bound: V8 collects lazily
// while memory is plentiful, so garbage would be read as cost.
import { createWriteStream } from 'node:fs';

interface Reply {
  readonly id?: number;
  readonly method?: string;
  readonly params?: { readonly chunk?: string };
  readonly result?: Record<string, unknown>;
  readonly error?: { readonly message: string };
}

/** The heap in use after a full GC, in bytes; with `snapshotPath`, a heap snapshot written there too. */
export async function liveHeap(inspectPort: number, snapshotPath?: string): Promise<number> {
  const targets = (await (await fetch(`http://127.0.0.1:${inspectPort}/json/list`)).json()) as { webSocketDebuggerUrl: string }[];
  const url = targets[0]?.webSocketDebuggerUrl;
  if (!url) throw new Error(`no inspector target on port ${inspectPort}`);
  const socket = new WebSocket(url);
  await new Promise((resolve, reject) => {
    socket.addEventListener('open', resolve, { once: true });
    socket.addEventListener('error', () => reject(new Error(`could not connect to the inspector at ${url}`)), { once: true });
  });
  const pending = new Map<number, { resolve: (value: Record<string, unknown>) => void; reject: (err: Error) => void }>();
  const snapshot = snapshotPath ? createWriteStream(snapshotPath) : undefined;
  socket.addEventListener('message', (event) => {
    const reply = JSON.parse(String(event.data)) as Reply;
    if (reply.method === 'HeapProfiler.addHeapSnapshotChunk') snapshot?.write(reply.params?.chunk ?? '');
    const waiter = reply.id !== undefined ? pending.get(reply.id) : undefined;
    if (!waiter) return;
    pending.delete(reply.id!);
    if (reply.error) waiter.reject(new Error(reply.error.message));
    else waiter.resolve(reply.result ?? {});
  });
  let next = 0;
  const call = (method: string, params: Record<string, unknown> = {}) =>
    new Promise<Record<string, unknown>>((resolve, reject) => {
      const id = ++next;
      pending.set(id, { resolve, reject });
      socket.send(JSON.stringify({ id, method, params }));
    });
  try {
    await call('HeapProfiler.enable');
    await call('HeapProfiler.collectGarbage');
    const { usedSize } = (await call('Runtime.getHeapUsage')) as { usedSize: number };
    if (snapshot) {
      await call('HeapProfiler.takeHeapSnapshot', { reportProgress: false });
      await new Promise((resolve) => snapshot.end(resolve));
    }
    return usedSize;
  } finally {
    socket.close();
  }
}
