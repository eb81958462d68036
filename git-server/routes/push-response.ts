// The answer to a push. Usually sent whole once the push is published. But indexing and publishing a large
// pack can take minutes with nothing on the wire, and a load balancer drops an idle connection: so when the
// client negotiated side-band and the work outlasts `keepaliveMs`, the answer starts early (200, then an
// empty side-band packet every `keepaliveMs`, as git's own receive-pack does) and the report follows. An
// error after that point can no longer change the status: it goes to the client on the error band.
import type { FastifyReply } from 'fastify';
import { PassThrough } from 'node:stream';
import { PublicError } from '../../src/errors.ts';
import { Band, FLUSH, sideband } from '../plumbing/pkt-line.ts';

/** An empty band-1 packet: the client's demultiplexer reads it as no data. */
const KEEPALIVE = Buffer.from('0005\x01');
export const RECEIVE_PACK_RESULT = 'application/x-git-receive-pack-result';

export class PushResponse {
  readonly #reply: FastifyReply;
  readonly #keepaliveMs: number;
  #stream: PassThrough | undefined;
  #timer: NodeJS.Timeout | undefined;
  #done = false;

  constructor(reply: FastifyReply, keepaliveMs: number) {
    this.#reply = reply;
    this.#keepaliveMs = keepaliveMs;
  }

  /** Whether the answer has started (status and headers sent). */
  get streaming(): boolean {
    return this.#stream !== undefined;
  }

  /** The client reads side-band: from now on, keep the connection alive while the push is worked on. */
  sidebandNegotiated(): void {
    if (this.#done || this.#timer) return;
    const tick = () => {
      if (this.#done) return;
      if (!this.#stream) {
        this.#stream = new PassThrough();
        this.#reply.header('cache-control', 'no-cache, max-age=0, must-revalidate').type(RECEIVE_PACK_RESULT).send(this.#stream);
      }
      this.#stream.write(KEEPALIVE);
      this.#timer = setTimeout(tick, this.#keepaliveMs);
    };
    this.#timer = setTimeout(tick, this.#keepaliveMs);
  }

  /** Sends the report (`body`, already in the negotiated framing). */
  finish(body: Buffer): FastifyReply {
    this.#stop();
    if (this.#stream) {
      this.#stream.end(body);
      return this.#reply;
    }
    return this.#reply.header('cache-control', 'no-cache, max-age=0, must-revalidate').type(RECEIVE_PACK_RESULT).send(body);
  }

  /** After the answer started, tells the client on the error band and ends; before, the caller rethrows. */
  failStreaming(error: unknown): FastifyReply {
    this.#stop();
    const message = error instanceof PublicError ? error.message : 'the server failed to handle the push; it has been logged';
    this.#stream?.end(Buffer.concat([...sideband(Band.error, Buffer.from(`error: ${message}\n`)), FLUSH]));
    return this.#reply;
  }

  #stop(): void {
    this.#done = true;
    clearTimeout(this.#timer);
  }
}
