import type { ServerResponse } from 'node:http';

/** How long a large answer may take to reach its caller: a base, plus its bytes at a slow client's rate. */
export interface SendDeadline {
  readonly baseMs: number;
  readonly minBytesPerSecond: number;
}

/** The query route's: 30 s, plus 256 KiB a second (a 32 MiB answer gets about two and a half minutes). */
export const QUERY_SEND_DEADLINE: SendDeadline = { baseMs: 30_000, minBytesPerSecond: 256 * 1024 };

/**
 * Ends the connection of a response of `bytes` that has not been written out within the deadline: Node keeps what
 * its caller has not read in this process's memory for as long as the connection lives, and nothing else ends a
 * connection whose client reads nothing (the server's timeouts cover requests, not responses). Every project shares
 * that memory.
 */
export function endStalledResponse(response: ServerResponse, bytes: number, deadline: SendDeadline = QUERY_SEND_DEADLINE): void {
  const ms = deadline.baseMs + (bytes / deadline.minBytesPerSecond) * 1000;
  const timer = setTimeout(() => response.destroy(), ms);
  timer.unref();
  const done = () => clearTimeout(timer);
  response.once('finish', done);
  response.once('close', done);
}
