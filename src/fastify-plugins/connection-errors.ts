import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';

/** A server's own error body for a status and a message: its media type and its text. */
export type ErrorBodyFormat = (status: number, message: string) => { contentType: string; body: string };

/**
 * A Fastify `clientErrorHandler`: what Node's HTTP parser refuses before there is a request (a garbled
 * request line, 400; headers past the size limit, 431; a request that did not arrive in time, 408) is
 * answered in the server's own error body, then the connection is closed, as Node and Fastify close it.
 */
export function connectionErrorHandler(format: ErrorBodyFormat): (error: Error & { code?: string }, socket: Socket) => void {
  return (error, socket) => {
    // The peer reset the connection: nobody is left to answer.
    if (error.code === 'ECONNRESET' || socket.destroyed) return;
    const [status, message] =
      error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? [408, 'The request did not arrive in time.']
        : error.code === 'HPE_HEADER_OVERFLOW'
          ? [431, 'The request line and headers are larger than the server accepts.']
          : [400, 'The request is not valid HTTP.'];
    const { contentType, body } = format(status, message);
    if (socket.writable) {
      socket.write(`HTTP/1.1 ${status} ${STATUS_CODES[status] ?? 'Error'}\r\nContent-Type: ${contentType}\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`);
    }
    socket.destroy(error);
  };
}
