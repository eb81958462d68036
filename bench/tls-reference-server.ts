// The references of the TLS section of bench/runtime.ts, each with one certificate: Node's own `tls` server (the
// floor of what a TLS terminator written in Node can do), and Node's http2 secure server with HTTP/1.1 allowed
// (the server type cw-runtime's HTTPS listener is, without its SNI, cache and metrics; it answers `ok`). The same
// versions as cw-runtime (TLS 1.2 and 1.3, Node's default suites and session tickets) and the same ALPN list.
// Argument: JSON {port, kind: 'tls' | 'http2', certPem, keyPem}.
import { createSecureServer } from 'node:http2';
import { createServer, type TLSSocket } from 'node:tls';
import { TLS_VERSIONS } from '../runtime-server/tls/tls-defaults.ts';

const { port, kind, certPem, keyPem } = JSON.parse(process.argv[2] ?? '{}') as { port: number; kind: 'tls' | 'http2'; certPem: string; keyPem: string };
const options = { cert: certPem, key: keyPem, ALPNProtocols: ['h2', 'http/1.1'], ...TLS_VERSIONS };
const server =
  kind === 'http2'
    ? createSecureServer({ ...options, allowHTTP1: true }, (_req, res) => res.end('ok'))
    : createServer(options, (socket) => {
        socket.on('error', () => {});
        socket.resume();
      });
server.on('tlsClientError', (_err: Error, socket: TLSSocket) => socket.destroy());
server.listen(port, '127.0.0.1', () => process.stdout.write(`listening on ${port}\n`));
