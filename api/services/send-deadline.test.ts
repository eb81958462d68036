import { createServer, type Server } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { endStalledResponse } from './send-deadline.ts';

const BIG = Buffer.alloc(32 * 1024 * 1024, 'x');

let server: Server | undefined;
afterEach(async () => {
  server?.closeAllConnections();
  await new Promise((resolve) => (server ? server.close(resolve) : resolve(undefined)));
  server = undefined;
});

/** A server answering BIG under the deadline; `closed` resolves when its response's connection ends, with whether all of it was written. */
async function serving(deadline: { baseMs: number; minBytesPerSecond: number }): Promise<{ port: number; closed: Promise<boolean> }> {
  let closed!: (finished: boolean) => void;
  const ended = new Promise<boolean>((resolve) => (closed = resolve));
  server = createServer((_request, response) => {
    endStalledResponse(response, BIG.length, deadline);
    response.once('close', () => closed(response.writableFinished));
    response.end(BIG);
  });
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  return { port: (server.address() as AddressInfo).port, closed: ended };
}

describe('endStalledResponse', () => {
  it('ends the connection of a caller that reads nothing of a large answer once its deadline passes', async () => {
    const { port, closed } = await serving({ baseMs: 200, minBytesPerSecond: 1024 ** 3 });
    const socket = connect(port, '127.0.0.1', () => socket.write('GET / HTTP/1.1\r\nhost: x\r\n\r\n'));
    socket.once('data', () => socket.pause());
    expect(await closed).toBe(false); // ended before all of it was written out
    socket.destroy();
  });

  it('lets a caller that reads the answer have all of it', async () => {
    // A deadline a loaded machine meets (one that took 200 ms cut a reading caller in a fresh-clone run).
    const { port, closed } = await serving({ baseMs: 60_000, minBytesPerSecond: 1024 ** 3 });
    const answer = await fetch(`http://127.0.0.1:${port}/`);
    expect((await answer.arrayBuffer()).byteLength).toBe(BIG.length);
    expect(await closed).toBe(true);
  });
});
