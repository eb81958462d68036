import { connect, type Socket } from 'node:net';

// A lean HTTP/1.1 client for the one peer the router talks to: workerd on a Unix socket. Node's
// `http.request` spends about twice the CPU of the whole server side on each proxied request (measured:
// docs/runtime.md); this client writes the request head as one string and parses only what framing
// needs (status, Content-Length, Transfer-Encoding, Connection), then hands body bytes through.

const MAX_HEAD_BYTES = 64 * 1024;
const CRLF = Buffer.from('\r\n');
const HEAD_END = Buffer.from('\r\n\r\n');
const CHUNKED_END = Buffer.from('0\r\n\r\n');

/** How the request body is framed on the way to workerd. */
export type BodyFraming = 'none' | 'length' | 'chunked';

export interface ExchangeHandlers {
  /** The response head. `headers` are raw name/value pairs, as `IncomingMessage.rawHeaders`. */
  head(status: number, message: string, headers: string[]): void;
  /** A piece of the response body; return `false` to pause until `Exchange.resume()`. */
  data(chunk: Buffer): boolean;
  /** The response is complete. */
  end(): void;
  /** The exchange failed; `responded` says whether `head` was called before. */
  error(err: Error, responded: boolean): void;
}

type BodyState = { kind: 'length'; left: number } | { kind: 'chunked'; left: number; phase: 'size' | 'data' | 'data-crlf' | 'trailers' } | { kind: 'close' };

/** One request/response on one connection. */
export class Exchange {
  readonly #client: UpstreamClient;
  readonly #socket: Socket;
  readonly #handlers: ExchangeHandlers;
  readonly #framing: BodyFraming;
  readonly #noBody: boolean;
  #buffer: Buffer | undefined;
  #body: BodyState | undefined;
  #responded = false;
  #responseDone = false;
  #requestDone: boolean;
  #reusable = true;
  #done = false;
  #paused = false;

  /** The connection carried an earlier request (so a failure before any response may be a stale connection). */
  readonly reused: boolean;

  constructor(client: UpstreamClient, socket: Socket, head: string, framing: BodyFraming, noBody: boolean, handlers: ExchangeHandlers, reused: boolean) {
    this.reused = reused;
    this.#client = client;
    this.#socket = socket;
    this.#handlers = handlers;
    this.#framing = framing;
    this.#noBody = noBody;
    this.#requestDone = framing === 'none';
    socket.on('data', this.#onData);
    socket.on('error', this.#onError);
    socket.on('close', this.#onClose);
    socket.write(head);
  }

  /** Writes a piece of the request body; `false` asks the caller to wait for `drain` on `socket`. */
  write(chunk: Buffer): boolean {
    if (this.#done || chunk.length === 0) return true;
    if (this.#framing === 'chunked') {
      this.#socket.write(`${chunk.length.toString(16)}\r\n`);
      this.#socket.write(chunk);
      return this.#socket.write(CRLF);
    }
    return this.#socket.write(chunk);
  }

  /** Ends the request body. */
  finish(): void {
    if (this.#done || this.#requestDone) return;
    this.#requestDone = true;
    if (this.#framing === 'chunked') this.#socket.write(CHUNKED_END);
    if (this.#responseDone) this.#release();
  }

  get socket(): Socket {
    return this.#socket;
  }

  resume(): void {
    if (this.#paused && !this.#done) {
      this.#paused = false;
      this.#socket.resume();
    }
  }

  /** Gives up on the exchange (the client went away): the connection is closed, not reused. */
  abort(): void {
    if (this.#done) return;
    this.#done = true;
    this.#detach();
    this.#socket.destroy();
  }

  readonly #onData = (data: Buffer): void => {
    if (this.#done) return;
    try {
      this.#consume(data);
    } catch (err) {
      this.#fail(err as Error);
    }
  };

  readonly #onError = (err: Error): void => this.#fail(err);

  readonly #onClose = (): void => {
    if (this.#done) return;
    if (this.#body?.kind === 'close') {
      this.#reusable = false;
      this.#complete();
      return;
    }
    this.#fail(new Error('workerd closed the connection before the response was complete'));
  };

  #consume(data: Buffer): void {
    let chunk: Buffer = this.#buffer ? Buffer.concat([this.#buffer, data]) : data;
    this.#buffer = undefined;
    while (chunk.length > 0) {
      if (this.#done) return;
      if (this.#responseDone) {
        this.#reusable = false; // bytes past the response: the connection's framing cannot be trusted
        return;
      }
      if (this.#body === undefined) {
        const end = chunk.indexOf(HEAD_END);
        if (end === -1) {
          if (chunk.length > MAX_HEAD_BYTES) throw new Error('workerd sent an oversized response head');
          this.#buffer = chunk;
          return;
        }
        this.#parseHead(chunk.toString('latin1', 0, end));
        chunk = chunk.subarray(end + 4);
        const body = this.#body as BodyState | undefined; // set by #parseHead unless it was an interim response
        if (body?.kind === 'length' && body.left === 0) this.#complete(chunk);
        continue;
      }
      chunk = this.#bodyBytes(chunk, this.#body);
    }
  }

  #parseHead(text: string): void {
    const lines = text.split('\r\n');
    const statusLine = lines[0] ?? '';
    const status = Number(statusLine.slice(9, 12));
    if (!statusLine.startsWith('HTTP/1.') || !(status >= 100 && status <= 999)) throw new Error('workerd sent a malformed status line');
    if (status >= 100 && status < 200) return; // interim response (e.g. 103 Early Hints): wait for the final one
    const headers: string[] = [];
    let length = -1;
    let chunked = false;
    for (let i = 1; i < lines.length; i++) {
      const line = lines[i] ?? '';
      const colon = line.indexOf(':');
      if (colon <= 0) throw new Error('workerd sent a malformed header');
      const name = line.slice(0, colon);
      const value = line.slice(colon + 1).trim();
      if (name.length === 14 && name.toLowerCase() === 'content-length') length = Number(value);
      else if (name.length === 17 && name.toLowerCase() === 'transfer-encoding') chunked = value.toLowerCase().includes('chunked');
      else if (name.length === 10 && name.toLowerCase() === 'connection' && value.toLowerCase().includes('close')) this.#reusable = false;
      headers.push(name, value);
    }
    if (this.#noBody || status === 204 || status === 304) this.#body = { kind: 'length', left: 0 };
    else if (chunked) this.#body = { kind: 'chunked', left: 0, phase: 'size' };
    else if (length >= 0 && Number.isSafeInteger(length)) this.#body = { kind: 'length', left: length };
    else {
      this.#body = { kind: 'close' };
      this.#reusable = false;
    }
    this.#responded = true;
    this.#handlers.head(status, statusLine.slice(13), headers);
  }

  /** Consumes body bytes from `chunk`, returns what is left of it (always empty unless the response ended). */
  #bodyBytes(chunk: Buffer, body: BodyState): Buffer {
    if (body.kind === 'close') {
      this.#deliver(chunk);
      return chunk.subarray(chunk.length);
    }
    if (body.kind === 'length') {
      const take = Math.min(body.left, chunk.length);
      body.left -= take;
      this.#deliver(chunk.subarray(0, take));
      const rest = chunk.subarray(take);
      if (body.left === 0) this.#complete(rest);
      return rest;
    }
    switch (body.phase) {
      case 'size': {
        const eol = chunk.indexOf(CRLF);
        if (eol === -1) return this.#keep(chunk);
        const size = parseInt(chunk.toString('latin1', 0, eol).split(';')[0] ?? '', 16);
        if (!Number.isSafeInteger(size) || size < 0) throw new Error('workerd sent a malformed chunk size');
        body.left = size;
        body.phase = size === 0 ? 'trailers' : 'data';
        return chunk.subarray(eol + 2);
      }
      case 'data': {
        const take = Math.min(body.left, chunk.length);
        body.left -= take;
        this.#deliver(chunk.subarray(0, take));
        if (body.left === 0) body.phase = 'data-crlf';
        return chunk.subarray(take);
      }
      case 'data-crlf': {
        if (chunk.length < 2) return this.#keep(chunk);
        body.phase = 'size';
        return chunk.subarray(2);
      }
      case 'trailers': {
        const eol = chunk.indexOf(CRLF);
        if (eol === -1) return this.#keep(chunk);
        const rest = chunk.subarray(eol + 2);
        if (eol === 0) this.#complete(rest); // the empty line that ends the trailers (trailers are dropped)
        return rest;
      }
    }
  }

  #keep(chunk: Buffer): Buffer {
    this.#buffer = chunk;
    return chunk.subarray(chunk.length);
  }

  #deliver(chunk: Buffer): void {
    if (chunk.length === 0) return;
    if (!this.#handlers.data(chunk) && !this.#done) {
      this.#paused = true;
      this.#socket.pause();
    }
  }

  /** The response ended; `rest` is what followed it in the same read (nothing, from a well-behaved workerd). */
  #complete(rest?: Buffer): void {
    if (this.#done || this.#responseDone) return;
    if (rest && rest.length > 0) this.#reusable = false;
    this.#responseDone = true;
    this.#handlers.end();
    if (this.#requestDone) this.#release();
    else this.#reusable = false; // still sending the request body: the connection cannot be reused
  }

  #release(): void {
    if (this.#done) return;
    this.#done = true;
    this.#detach();
    if (this.#reusable && this.#buffer === undefined) this.#client.release(this.#socket);
    else this.#socket.destroy();
  }

  #fail(err: Error): void {
    if (this.#done) return;
    this.#done = true;
    this.#detach();
    this.#socket.destroy();
    if (!this.#responseDone) this.#handlers.error(err, this.#responded); // else: only the rest of the request body is lost
  }

  #detach(): void {
    this.#socket.off('data', this.#onData);
    this.#socket.off('error', this.#onError);
    this.#socket.off('close', this.#onClose);
    if (this.#paused) this.#socket.resume();
  }
}

/** Keep-alive connections to one workerd socket, reused most-recent first. */
export class UpstreamClient {
  readonly socketPath: string;
  readonly #idle: Socket[] = [];
  readonly #onIdleClose = new WeakMap<Socket, () => void>();
  readonly #maxIdle: number;
  readonly #idleTimeoutMs: number;
  #destroyed = false;

  /**
   * `idleTimeoutMs` closes a kept-alive connection before workerd does (it closes them after 15 s idle),
   * so a request is almost never written to a connection that is being closed under it.
   */
  constructor(socketPath: string, options: { maxIdle?: number; idleTimeoutMs?: number } = {}) {
    this.socketPath = socketPath;
    this.#maxIdle = options.maxIdle ?? 256;
    this.#idleTimeoutMs = options.idleTimeoutMs ?? 10_000;
  }

  /**
   * Sends a request: `head` is the request line and headers, ending with an empty line. Body bytes
   * follow through `Exchange.write` / `finish` unless `framing` is `none`. `noBody` marks a HEAD
   * request, whose response has no body whatever its headers say. `fresh` skips idle connections
   * (a retry after an idle one turned out closed).
   */
  exchange(head: string, framing: BodyFraming, noBody: boolean, handlers: ExchangeHandlers, fresh = false): Exchange {
    let socket = fresh ? undefined : this.#idle.pop();
    const reused = socket !== undefined;
    if (socket) {
      const onClose = this.#onIdleClose.get(socket);
      if (onClose) socket.off('close', onClose).off('error', onClose).off('timeout', onClose);
      socket.setTimeout(0);
    } else {
      socket = connect(this.socketPath);
    }
    return new Exchange(this, socket, head, framing, noBody, handlers, reused);
  }

  /** Called by an exchange whose connection may carry another request. */
  release(socket: Socket): void {
    if (this.#destroyed || this.#idle.length >= this.#maxIdle || socket.destroyed) {
      socket.destroy();
      return;
    }
    const onClose = () => {
      const at = this.#idle.indexOf(socket);
      if (at !== -1) this.#idle.splice(at, 1);
      socket.destroy();
    };
    this.#onIdleClose.set(socket, onClose);
    socket.once('close', onClose).once('error', onClose).once('timeout', onClose);
    socket.setTimeout(this.#idleTimeoutMs);
    this.#idle.push(socket);
  }

  get idle(): number {
    return this.#idle.length;
  }

  /** Closes idle connections; busy ones close when their exchange ends. */
  destroy(): void {
    this.#destroyed = true;
    for (const socket of this.#idle.splice(0)) socket.destroy();
  }
}
