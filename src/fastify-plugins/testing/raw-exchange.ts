import type { FastifyInstance } from 'fastify';
import { connect, type AddressInfo } from 'node:net';

/** What `app` answers to `raw` sent over a fresh connection, up to its closing it; `app` is closed after. */
export async function rawExchange(app: FastifyInstance, raw: string): Promise<string> {
  await app.listen({ host: '127.0.0.1', port: 0 });
  const { port } = app.server.address() as AddressInfo;
  try {
    return await new Promise<string>((resolve, reject) => {
      let answer = '';
      const socket = connect(port, '127.0.0.1', () => socket.write(raw));
      socket.on('data', (chunk) => (answer += String(chunk)));
      socket.on('close', () => resolve(answer));
      socket.on('error', reject);
    });
  } finally {
    await app.close();
  }
}
