// A TCP round-robin balancer standing in for a Kubernetes Service in front of cw-runtime replicas: each
// connection goes to the next backend; one that refuses the connection (its process gone) is skipped, as
// kube-proxy's endpoints lose a pod that fails its probes.
import { connect, createServer, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';

export interface RoundRobinProxy {
  readonly port: number;
  /** The backends' ports, changed as replicas come and go (a Service's endpoints). */
  backends: number[];
  /** Resolves once no connection to `port` is open (after taking it out of `backends`: its requests have finished). */
  drained(port: number): Promise<void>;
  /** Why the proxy cut clients off, oldest first (a backend's error, or every backend refusing): a failure's cause. */
  readonly cutOff: string[];
  close(): Promise<void>;
}

export async function startRoundRobinProxy(backends: number[]): Promise<RoundRobinProxy> {
  let next = 0;
  const sockets = new Set<Socket>();
  const openCount = new Map<number, number>();
  const waiters = new Map<number, Array<() => void>>();
  const cutOff: string[] = [];
  const cut = (client: Socket, why: string) => {
    cutOff.push(`${new Date().toISOString()} ${why}`);
    client.destroy();
  };
  const opened = (port: number, delta: number) => {
    const count = (openCount.get(port) ?? 0) + delta;
    openCount.set(port, count);
    if (count === 0) for (const wake of waiters.get(port)?.splice(0) ?? []) wake();
  };
  // The ports a client's connection was refused by: the backends may change between two attempts (a test taking
  // a killed replica out), so a count of attempts against the list as it is now could give up untried.
  const open = (client: Socket, refused: ReadonlySet<number>): void => {
    const ports = proxy.backends.filter((port) => !refused.has(port));
    if (ports.length === 0) {
      cut(client, `every backend refused (${[...refused].join(', ')})`);
      return;
    }
    const port = ports[next++ % ports.length]!;
    const upstream = connect(port, '127.0.0.1');
    sockets.add(upstream);
    opened(port, 1);
    upstream.once('close', () => {
      sockets.delete(upstream);
      opened(port, -1);
    });
    upstream.once('error', (err: NodeJS.ErrnoException) => {
      if (err.code === 'ECONNREFUSED' && !upstream.bytesWritten) open(client, new Set([...refused, port]));
      else cut(client, `backend ${port}: ${err.code ?? err.message}${upstream.bytesWritten ? ' after the request was sent' : ''}`);
    });
    upstream.once('connect', () => {
      client.pipe(upstream).pipe(client);
      client.once('error', () => upstream.destroy());
      client.once('close', () => upstream.destroy());
      // A backend closing after its answer (the client asked for Connection: close) ends the client's side once
      // the answer is written: pipe() does that. destroy() here dropped answer bytes still being written under
      // load, which the client saw as ECONNRESET. Only a backend that failed takes the client down at once.
      upstream.once('close', (hadError) => {
        if (hadError && !client.destroyed) cut(client, `backend ${port} closed with an error after ${upstream.bytesRead} bytes of its answer`);
      });
      client.resume();
    });
  };
  const server: Server = createServer({ pauseOnConnect: true }, (client) => {
    sockets.add(client);
    client.once('close', () => sockets.delete(client));
    open(client, new Set());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const proxy: RoundRobinProxy = {
    port: (server.address() as AddressInfo).port,
    backends,
    cutOff,
    drained: (port) => ((openCount.get(port) ?? 0) === 0 ? Promise.resolve() : new Promise<void>((resolve) => waiters.set(port, [...(waiters.get(port) ?? []), resolve]))),
    close: () =>
      new Promise((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
  return proxy;
}
