// A TCP proxy that can be switched off: while down it cuts every open connection and closes each new one as soon
// as it is accepted, so a client behind it sees a store that cannot be reached (and nothing half-answered).
import { connect, createServer, type AddressInfo, type Socket } from 'node:net';

export interface SwitchableProxy {
  /** `http://127.0.0.1:<port>`: where clients connect instead of the target. */
  readonly endpoint: string;
  down(): void;
  up(): void;
  close(): Promise<void>;
}

/** Starts a proxy to `target` (an `http://host:port` URL), up. */
export async function startSwitchableProxy(target: string): Promise<SwitchableProxy> {
  const upstream = new URL(target);
  const sockets = new Set<Socket>();
  let isUp = true;
  const track = (socket: Socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  };
  const server = createServer((client) => {
    if (!isUp) {
      client.destroy();
      return;
    }
    track(client);
    const out = connect(Number(upstream.port), upstream.hostname);
    track(out);
    client.pipe(out).pipe(client);
    client.once('error', () => out.destroy());
    out.once('error', () => client.destroy());
    client.once('close', () => out.destroy());
    out.once('close', () => client.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    down() {
      isUp = false;
      for (const socket of sockets) socket.destroy();
    },
    up() {
      isUp = true;
    },
    close: () =>
      new Promise((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
