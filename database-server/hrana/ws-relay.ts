// A WebSocket whose URL names no database (`ws://host/`, `/v1`) is known only by its hello's token, after the
// handshake: too late to splice the two TCP connections as an upgrade naming the database is. With several replicas,
// such a connection to a database another replica owns is relayed message by message to the owner (review-164 F7),
// so every URL form the server accepts works through any replica, as HTTP's routing by token does.
import WebSocket, { type RawData } from 'ws';
import { FORWARDED_HEADER, MOVING } from './forward.ts';

/** A message as `ws` gave it. */
export interface WsFrame {
  data: RawData;
  isBinary: boolean;
}

export interface RelayOptions {
  /** Largest message either side may send (the Hrana server's body bound). */
  maxPayload: number;
  /** Bytes held for a side that does not read before the other is read no further. */
  bufferBound: number;
}

/**
 * Relays `client` to the same path on the owner (`target`, a `ws://` URL), `early` first (what the client sent before
 * the owner was known, the hello among it). Each direction holds at most `bufferBound` bytes unsent: past it, the side
 * sending is paused until the other has taken them. An owner that cannot be reached closes the client 1013 with
 * DATABASE_MOVING (nothing ran: reconnect); either side closing closes the other.
 */
export function relayWebSocket(client: WebSocket, target: string, early: readonly WsFrame[], options: RelayOptions): void {
  const upstream = new WebSocket(target, client.protocol ? [client.protocol] : [], { headers: { [FORWARDED_HEADER]: '1' }, maxPayload: options.maxPayload, perMessageDeflate: false });
  const toOwner = new HeldBytes(
    options.bufferBound,
    () => client.pause(),
    () => client.resume(),
  );
  const toClient = new HeldBytes(
    options.bufferBound,
    () => upstream.pause(),
    () => upstream.resume(),
  );
  let pending: WsFrame[] | undefined = [...early];
  for (const frame of early) toOwner.add(frameBytes(frame));

  const sendToOwner = (frame: WsFrame) => {
    const bytes = frameBytes(frame);
    upstream.send(frame.data, { binary: frame.isBinary }, () => toOwner.sent(bytes));
  };
  client.on('message', (data, isBinary) => {
    const frame = { data, isBinary };
    if (pending) {
      pending.push(frame);
      toOwner.add(frameBytes(frame));
    } else {
      toOwner.add(frameBytes(frame));
      sendToOwner(frame);
    }
  });
  upstream.on('open', () => {
    const held = pending ?? [];
    pending = undefined;
    for (const frame of held) sendToOwner(frame);
  });
  upstream.on('message', (data, isBinary) => {
    const bytes = frameBytes({ data, isBinary });
    toClient.add(bytes);
    client.send(data, { binary: isBinary }, () => toClient.sent(bytes));
  });
  upstream.on('close', (code, reason) => closeWith(client, code, reason.toString()));
  client.on('close', (code, reason) => closeWith(upstream, code, reason.toString()));
  upstream.on('error', () => {
    if (pending) client.close(1013, MOVING.message.slice(0, 120));
    else client.terminate();
  });
  client.on('error', () => upstream.terminate());
}

/** Bytes given to a side and not yet written out; pauses the sender past the bound and resumes it below half. */
class HeldBytes {
  #held = 0;
  #paused = false;
  readonly #bound: number;
  readonly #pause: () => void;
  readonly #resume: () => void;

  constructor(bound: number, pause: () => void, resume: () => void) {
    this.#bound = bound;
    this.#pause = pause;
    this.#resume = resume;
  }

  add(bytes: number): void {
    this.#held += bytes;
    if (!this.#paused && this.#held > this.#bound) {
      this.#paused = true;
      this.#pause();
    }
  }

  sent(bytes: number): void {
    this.#held -= bytes;
    if (this.#paused && this.#held <= this.#bound / 2) {
      this.#paused = false;
      this.#resume();
    }
  }
}

function frameBytes(frame: WsFrame): number {
  return rawBytes(frame.data);
}

/** The bytes of a message as `ws` gave it. */
export function rawBytes(data: RawData): number {
  if (Array.isArray(data)) return data.reduce((sum, b) => sum + b.length, 0);
  return data instanceof ArrayBuffer ? data.byteLength : data.length;
}

/** Closes `ws` as the other side closed: with its code where one may be sent, else at once. */
function closeWith(ws: WebSocket, code: number, reason: string): void {
  if (ws.readyState === WebSocket.CLOSED || ws.readyState === WebSocket.CLOSING) return;
  if (sendable(code)) ws.close(code, reason);
  else if (code === 1005) ws.close();
  else ws.terminate();
}

/** Codes a close frame may carry (RFC 6455 7.4; 1005 and 1006 only say that none came). */
function sendable(code: number): boolean {
  return (code >= 1000 && code <= 1003) || (code >= 1007 && code <= 1014) || (code >= 3000 && code <= 4999);
}
