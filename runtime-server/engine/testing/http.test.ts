import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { send, TestRequestTimeoutError } from './http.ts';

describe('send', () => {
  let server: Server;
  let port = 0;
  beforeAll(async () => {
    server = createServer((req, res) => {
      if (req.url === '/silent') return; // never answers
      if (req.url === '/trickle') {
        res.writeHead(200);
        res.write(' '); // the head goes out, the body never ends
        return;
      }
      res.end('ok');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  it('answers status and body', async () => {
    expect(await send(port, 'a.test', '/')).toMatchObject({ status: 200, body: 'ok' });
  });

  it('fails a request that gets no answer within its bound, naming it', async () => {
    const failure = send(port, 'a.test', '/silent', { timeoutMs: 200 });
    await expect(failure).rejects.toBeInstanceOf(TestRequestTimeoutError);
    await expect(failure).rejects.toThrow('GET http://a.test/silent got no complete answer within 200 ms (not even its head arrived)');
  });

  it('fails a request whose body never ends, though bytes came', async () => {
    await expect(send(port, 'a.test', '/trickle', { timeoutMs: 200 })).rejects.toThrow('its head arrived, its body did not end');
  });
});
