// One DNS server's sockets: UDP and TCP on one port (RFC 7766), each query handed to `answer`, whose reply is
// sent back (TCP framed); a query it will not answer gets nothing (UDP) or a closed connection (TCP).
import { createSocket, type Socket } from 'node:dgram';
import { createServer, type AddressInfo, type Server, type Socket as TcpSocket } from 'node:net';
import { frameForTcp, TcpFrameReader } from './dns-wire.ts';

export type DnsAnswer = (query: Buffer, transport: 'udp' | 'tcp') => Buffer | undefined | Promise<Buffer | undefined>;

/** Listens on `host:port` (0: a free port for both) and answers every query with `answer`. */
export async function listenDns(host: string, port: number, answer: DnsAnswer): Promise<{ port: number; stop: () => Promise<void> }> {
  const { udp, tcp, port: bound } = await bindBoth(host, port);
  const connections = new Set<TcpSocket>();
  udp.on('message', (buf, remote) => {
    void Promise.resolve(answer(buf, 'udp')).then((reply) => reply && udp.send(reply, remote.port, remote.address));
  });
  tcp.on('connection', (socket) => {
    connections.add(socket);
    socket.on('close', () => connections.delete(socket));
    socket.on('error', () => socket.destroy());
    const reader = new TcpFrameReader();
    socket.on('data', (chunk) => {
      for (const frame of reader.push(chunk)) {
        void Promise.resolve(answer(frame, 'tcp')).then((reply) => (reply ? socket.write(frameForTcp(reply)) : socket.destroy()));
      }
    });
  });
  return {
    port: bound,
    stop: async () => {
      for (const socket of connections) socket.destroy();
      await Promise.all([new Promise<void>((resolve) => udp.close(() => resolve())), new Promise<void>((resolve) => tcp.close(() => resolve()))]);
    },
  };
}

/** Binds UDP and TCP to the same port; with port 0, retries until a port is free for both. */
async function bindBoth(host: string, port: number): Promise<{ udp: Socket; tcp: Server; port: number }> {
  for (let attempt = 0; ; attempt++) {
    const tcp = createServer();
    await new Promise<void>((resolve, reject) => {
      tcp.once('error', reject);
      tcp.listen(port, host, () => resolve());
    });
    const bound = (tcp.address() as AddressInfo).port;
    const udp = createSocket(host.includes(':') ? 'udp6' : 'udp4');
    try {
      await new Promise<void>((resolve, reject) => {
        udp.once('error', reject);
        udp.bind(bound, host, () => resolve());
      });
      udp.removeAllListeners('error');
      udp.on('error', () => {}); // a send to a vanished client must not crash the process
      return { udp, tcp, port: bound };
    } catch (err) {
      try {
        udp.close();
      } catch {
        // never bound: nothing to close
      }
      await new Promise<void>((resolve) => tcp.close(() => resolve()));
      if (port !== 0 || attempt >= 20) throw err;
    }
  }
}
