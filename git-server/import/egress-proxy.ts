// The one way out for git when it fetches an import source: a CONNECT proxy on loopback, one per fetch, that lets
// git's TLS connections reach exactly the source's host and port, at the addresses resolved and checked when it
// started (the webhooks' target policy: no loopback, private, link-local or metadata address unless allowed), so
// neither a redirect to another host nor a DNS answer that changes between the check and the connection (DNS
// rebinding) can make git reach an internal address. It counts the bytes the source sends and cuts every
// connection past the bound. TLS stays end to end between git and the source; the proxy sees only ciphertext.
import type { LookupAddress } from 'node:dns';
import { lookup as dnsLookup } from 'node:dns/promises';
import http from 'node:http';
import net, { isIP } from 'node:net';
import type { Duplex } from 'node:stream';
import type { TargetPolicy } from '../../src/target-policy.ts';

/** Why the proxy stopped git, when it did. */
export type EgressFailure =
  | { readonly kind: 'too_large'; readonly bytes: number }
  | { readonly kind: 'other_host'; readonly target: string }
  | { readonly kind: 'unreachable'; readonly reason: string }
  /** `onReceived` refused what arrived (a budget outside the proxy, the owner's spool): its error. */
  | { readonly kind: 'refused'; readonly error: Error };

export interface EgressProxyOptions {
  /** The source's host name (or address) and port: the only destination. */
  readonly host: string;
  readonly port: number;
  readonly policy: TargetPolicy;
  /** Bytes the source may send in all; past it every connection is cut (`too_large`). */
  readonly maxBytes: number;
  /** Told the bytes received in all as they arrive; when it throws, every connection is cut (`refused`). */
  readonly onReceived?: (bytes: number) => void;
  /** Resolves a host name to every address (tests stand in for DNS). Default: the system resolver. */
  readonly resolve?: (host: string) => Promise<readonly LookupAddress[]>;
}

const systemResolve = (host: string) => dnsLookup(host, { all: true, order: 'verbatim' });

export class EgressProxy {
  readonly #server: http.Server;
  readonly #sockets = new Set<Duplex>();
  readonly #options: EgressProxyOptions;
  readonly #addresses: readonly LookupAddress[];
  #received = 0;
  #failure: EgressFailure | undefined;

  private constructor(server: http.Server, options: EgressProxyOptions, addresses: readonly LookupAddress[]) {
    this.#server = server;
    this.#options = options;
    this.#addresses = addresses;
    server.on('connect', (request: http.IncomingMessage, client: Duplex, head: Buffer) => this.#connect(request, client, head));
    server.on('request', (_request, response: http.ServerResponse) => response.writeHead(405, { connection: 'close' }).end());
  }

  /**
   * Resolves the host, checks every address (throws `TargetRefusedError` naming the refused one, before anything
   * connects) and listens on a loopback port.
   */
  static async start(options: EgressProxyOptions): Promise<EgressProxy> {
    const host = options.host.replace(/^\[(.*)\]$/, '$1');
    const family = isIP(host);
    const addresses = family ? [{ address: host, family }] : await (options.resolve ?? systemResolve)(host);
    options.policy.check(
      host,
      addresses.map((a) => a.address),
    );
    const server = http.createServer();
    await new Promise<void>((resolve, reject) => server.once('error', reject).listen(0, '127.0.0.1', resolve));
    return new EgressProxy(server, options, addresses);
  }

  /** `http://127.0.0.1:<port>`, for git's `http.proxy`. */
  get url(): string {
    const { port } = this.#server.address() as net.AddressInfo;
    return `http://127.0.0.1:${port}`;
  }

  /** Bytes the source has sent. */
  get received(): number {
    return this.#received;
  }

  /** The first reason the proxy stopped a connection, if any. */
  get failure(): EgressFailure | undefined {
    return this.#failure;
  }

  /** Cuts every connection and stops listening. */
  async close(): Promise<void> {
    for (const socket of this.#sockets) socket.destroy();
    this.#server.closeAllConnections();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }

  #fail(failure: EgressFailure): void {
    this.#failure ??= failure;
    for (const socket of this.#sockets) socket.destroy();
  }

  #connect(request: http.IncomingMessage, client: Duplex, head: Buffer): void {
    this.#sockets.add(client);
    client.once('close', () => this.#sockets.delete(client));
    client.on('error', () => client.destroy());
    const wanted = `${this.#options.host.toLowerCase()}:${this.#options.port}`;
    if ((request.url ?? '').toLowerCase() !== wanted) {
      this.#failure ??= { kind: 'other_host', target: request.url ?? '' };
      client.end('HTTP/1.1 403 Forbidden\r\nConnection: close\r\n\r\n');
      return;
    }
    const first = this.#addresses[0] as LookupAddress;
    const upstream = net.connect({ host: first.address, port: this.#options.port, family: first.family });
    this.#sockets.add(upstream);
    upstream.once('close', () => {
      this.#sockets.delete(upstream);
      client.destroy();
    });
    client.once('close', () => upstream.destroy());
    upstream.once('error', (error: NodeJS.ErrnoException) => {
      this.#failure ??= { kind: 'unreachable', reason: `${first.address}:${this.#options.port}: ${error.code ?? error.message}` };
      client.end('HTTP/1.1 502 Bad Gateway\r\nConnection: close\r\n\r\n');
    });
    upstream.once('connect', () => {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      if (head.length > 0) upstream.write(head);
      upstream.on('data', (chunk: Buffer) => {
        this.#received += chunk.length;
        if (this.#received > this.#options.maxBytes) return this.#fail({ kind: 'too_large', bytes: this.#received });
        try {
          this.#options.onReceived?.(this.#received);
        } catch (error) {
          this.#fail({ kind: 'refused', error: error as Error });
        }
      });
      upstream.pipe(client);
      client.pipe(upstream);
    });
  }
}
