import { once } from 'node:events';
import { connect, createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { EnvReader } from './config/env.ts';
import { ConnectionGuard, connectionLimitsFromEnv, guardConnections, openFileLimit } from './connection-guard.ts';

let server: Server | undefined;
const sockets: Socket[] = [];
afterEach(async () => {
  for (const socket of sockets.splice(0)) socket.destroy();
  await new Promise((resolve) => (server ? server.close(resolve) : resolve(undefined)));
});

/** Connects from `from` and answers whether the server kept the connection: it echoes a byte only on those it holds. */
async function held(port: number, from: string): Promise<boolean> {
  const socket = connect({ port, host: '127.0.0.1', localAddress: from });
  sockets.push(socket);
  await once(socket, 'connect');
  socket.write('x');
  const answer = await Promise.race([once(socket, 'data').then(() => true), once(socket, 'close').then(() => false)]);
  return answer;
}

describe('guardConnections', () => {
  it('holds at most so many connections of one peer address, and so many in all; a freed place is taken again', async () => {
    server = createServer((socket) => socket.on('data', (d) => socket.write(d)));
    guardConnections(server, { total: 4, perPeer: 2 });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const { port } = server.address() as AddressInfo;
    expect([await held(port, '127.0.0.1'), await held(port, '127.0.0.1'), await held(port, '127.0.0.1')]).toEqual([true, true, false]);
    expect([await held(port, '127.0.0.2'), await held(port, '127.0.0.2')]).toEqual([true, true]);
    expect(await held(port, '127.0.0.3')).toBe(false);
    sockets[0]!.destroy();
    await expect.poll(async () => held(port, '127.0.0.1')).toBe(true);
  });
});

describe('ConnectionGuard', () => {
  it('holds the listeners it guards to one total together', async () => {
    const guard = new ConnectionGuard({ total: 3, perPeer: 3 });
    const servers = [0, 1].map(() => createServer((socket) => socket.on('data', (d) => socket.write(d))));
    const ports: number[] = [];
    for (const s of servers) {
      guard.guard(s);
      s.listen(0, '127.0.0.1');
      await once(s, 'listening');
      ports.push((s.address() as AddressInfo).port);
    }
    try {
      expect([await held(ports[0]!, '127.0.0.1'), await held(ports[0]!, '127.0.0.1'), await held(ports[1]!, '127.0.0.1'), await held(ports[1]!, '127.0.0.1')]).toEqual([true, true, true, false]);
      expect(guard.held).toBe(3);
    } finally {
      for (const socket of sockets.splice(0)) socket.destroy();
      await Promise.all(servers.map((s) => new Promise((resolve) => s.close(resolve))));
    }
  });
});

describe('connection limits', () => {
  it('default to half the open-file limit with no bound per peer of their own, and read the environment over them', () => {
    expect(connectionLimitsFromEnv(new EnvReader({}), 'CW_X', 20_000)).toEqual({ total: 10_000, perPeer: 10_000 });
    expect(connectionLimitsFromEnv(new EnvReader({}), 'CW_X', 1_048_576)).toEqual({ total: 16_384, perPeer: 16_384 });
    expect(connectionLimitsFromEnv(new EnvReader({ CW_X_MAX_CONNECTIONS: '500', CW_X_MAX_CONNECTIONS_PER_PEER: '500' }), 'CW_X', 20_000)).toEqual({ total: 500, perPeer: 500 });
    expect(() => connectionLimitsFromEnv(new EnvReader({ CW_X_MAX_CONNECTIONS: '100', CW_X_MAX_CONNECTIONS_PER_PEER: '200' }), 'CW_X')).toThrow(/CW_X_MAX_CONNECTIONS_PER_PEER/);
  });

  it("reads the soft open-file limit from the process's limits", () => {
    const limits = 'Limit                     Soft Limit           Hard Limit           Units\nMax open files            20000                524288               files\n';
    expect(openFileLimit(limits)).toBe(20_000);
    expect(openFileLimit('')).toBe(1024);
    expect(openFileLimit('Max open files            unlimited            unlimited            files\n')).toBe(1 << 20);
  });
});
