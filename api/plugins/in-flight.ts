import type { ServerResponse } from 'node:http';
import type { FastifyReply, RouteHandlerMethod } from 'fastify';

/** Set on a response while its route's handler runs (`countedWhileRunning`), for every limit that counts it. */
const handlerRunning = Symbol('handler running');
/** The limits' leaves put off by a close that came while the handler ran, called once it returns. */
const leavesAfterHandler = Symbol('leaves after the handler');

type Leave = (this: Counted) => void;

/** The longest a slot stays held for a caller who hung up while its handler runs (every wait of the API is shorter). */
export const HELD_AFTER_HANG_UP_MS = 5 * 60_000;
/** A response counted for a caller: the caller's key under the limit's own symbol (one listener, no closure each). */
type Counted = ServerResponse & { [handlerRunning]?: boolean; [leavesAfterHandler]?: Leave[] } & Record<symbol, unknown>;

/**
 * How many requests each caller has in flight, bounded: a rate limit alone lets a caller hold as many slow
 * requests open at once as its rate times their duration (50 a second of 30-second queries is 1,500), each
 * holding the process's memory and its connections to the apiserver and cw-db, which every tenant shares. A
 * request counts from when it is let through until its response closes (sent, or its connection lost) and, on a
 * route whose handler is `countedWhileRunning`, its handler has returned: a caller that hangs up gets its slot
 * back only once the work it asked for ends, or hanging up and asking again would start more at once than the bound.
 */
export class InFlightLimit {
  readonly #max: number;
  readonly #counts = new Map<string, number>();
  /** This limit's own: a response counted by two limits gives each its own key back. */
  readonly #countedFor = Symbol('in-flight caller');
  readonly #leaveOnClose: Leave;

  constructor(max: number) {
    this.#max = max;
    const countedFor = this.#countedFor;
    const leaveKey = (key: string) => this.#leave(key);
    const leave: Leave = function (this: Counted) {
      const key = this[countedFor];
      if (typeof key === 'string') leaveKey(key);
    };
    this.#leaveOnClose = function (this: Counted) {
      if (this[handlerRunning] !== true) return leave.call(this);
      // Once, at the handler's return or at the ceiling, whichever comes first: a handler that never settled (a wait
      // with no bound of its own) would otherwise hold its caller's slot until the process restarts.
      let left = false;
      const leaveOnce = function (this: Counted) {
        if (left) return;
        left = true;
        clearTimeout(ceiling);
        leave.call(this);
      };
      const ceiling = setTimeout(() => leaveOnce.call(this), HELD_AFTER_HANG_UP_MS);
      ceiling.unref();
      (this[leavesAfterHandler] ??= []).push(leaveOnce);
    };
  }

  get max(): number {
    return this.#max;
  }

  /** Whether `key` may start one more request now (counting nothing). */
  hasRoom(key: string): boolean {
    return (this.#counts.get(key) ?? 0) < this.#max;
  }

  /** Counts a request of `key` in until `reply`'s response closes (and its handler returns). Call it only after `hasRoom`. */
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

/**
 * `handler`, marking its response while it runs, so that an `InFlightLimit` whose response closes meanwhile (its
 * caller hung up) gives the slot back when the handler returns rather than at once. A handler that sends later
 * through `reply` (callback style) counts as returned when it returns; one that returns a promise, when it settles.
 */
export function countedWhileRunning(handler: RouteHandlerMethod): RouteHandlerMethod {
  return function (this: unknown, request, reply) {
    const response = reply.raw as Counted;
    response[handlerRunning] = true;
    let result: unknown;
    try {
      result = handler.call(this as never, request, reply);
    } catch (err) {
      handlerReturned(response);
      throw err;
    }
    if (!isPromise(result)) {
      handlerReturned(response);
      return result;
    }
    return result.then(
      (value) => {
        handlerReturned(response);
        return value;
      },
      (err: unknown) => {
        handlerReturned(response);
        throw err;
      },
    );
  };
}

function handlerReturned(response: Counted): void {
  response[handlerRunning] = false;
  const leaves = response[leavesAfterHandler];
  if (leaves === undefined) return;
  response[leavesAfterHandler] = undefined;
  for (const leave of leaves) leave.call(response);
}

function isPromise(value: unknown): value is PromiseLike<unknown> {
  return typeof (value as PromiseLike<unknown> | undefined)?.then === 'function';
}
