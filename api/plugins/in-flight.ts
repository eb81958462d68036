import type { ServerResponse } from 'node:http';
import type { FastifyReply } from 'fastify';

/** A response counted for a caller: the caller's key under the limit's own symbol (one listener, no closure each). */
type Counted = ServerResponse & Record<symbol, string | undefined>;

/**
 * How many requests each caller has in flight, bounded: a rate limit alone lets a caller hold as many slow
 * requests open at once as its rate times their duration (50 a second of 30-second queries is 1,500), each
 * holding the process's memory and its connections to the apiserver and cw-db, which every tenant shares. A
 * request counts from when it is let through until its response closes (sent, or its connection lost), so
 * the counts hold only callers with a request open.
 */
export class InFlightLimit {
  readonly #max: number;
  readonly #counts = new Map<string, number>();
  /** This limit's own: a response counted by two limits gives each its own key back. */
  readonly #countedFor = Symbol('in-flight caller');
  readonly #leaveOnClose: (this: Counted) => void;

  constructor(max: number) {
    this.#max = max;
    const leave = (key: string) => this.#leave(key);
    const countedFor = this.#countedFor;
    this.#leaveOnClose = function (this: Counted) {
      const key = this[countedFor];
      if (key !== undefined) leave(key);
    };
  }

  get max(): number {
    return this.#max;
  }

  /** Whether `key` may start one more request now (counting nothing). */
  hasRoom(key: string): boolean {
    return (this.#counts.get(key) ?? 0) < this.#max;
  }

  /** Counts a request of `key` in until `reply`'s response closes. Call it only after `hasRoom`. */
  enter(key: string, reply: FastifyReply): void {
    this.#counts.set(key, (this.#counts.get(key) ?? 0) + 1);
    const response = reply.raw as Counted;
    response[this.#countedFor] = key;
    // `close` comes once per response, whether it was sent or its caller hung up.
    response.on('close', this.#leaveOnClose);
  }

  #leave(key: string): void {
    const left = (this.#counts.get(key) ?? 1) - 1;
    if (left > 0) this.#counts.set(key, left);
    else this.#counts.delete(key);
  }
}
