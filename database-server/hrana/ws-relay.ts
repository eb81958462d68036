// A WebSocket whose URL names no database (`ws://host/`, `/v1`) is known only by its hello's token, after the
// handshake: too late to splice the two TCP connections as an upgrade naming the database is. With several replicas,
// such a connection to a database another replica owns is relayed message by message to the owner (review-164 F7),
// so every URL form the server accepts works through any replica, as HTTP's routing by token does.
import WebSocket, { type RawData } from 'ws';
import { FORWARDED_HEADER, MOVING } from './forward.ts';
import type { ProjectMemory } from './project-memory.ts';

/** A message as `ws` gave it. */
export interface WsFrame {
  data: RawData;
  isBinary: boolean;
}

export interface RelayOptions {
  /** The database the hello's token opens: what the relay holds is charged to its account in `memory`. */
  database: string;
  /** What each project's requests may hold in this process (the Hrana server's, shared with its own sessions). */
  memory: ProjectMemory;
  /** Bytes held for a side that does not read before the other is read no further (a message is taken whole). */
  bufferBound: number;
  /** How long the owner may take to answer the upgrade. */
  handshakeTimeoutMs?: number;
}

/**
 * Relays `client` to the same path on the owner (`target`, a `ws://` URL), `early` first (what the client sent before
 * the owner was known, the hello among it). Each direction holds at most `bufferBound` bytes and a message before the
 * sending side is read no further, and everything held is charged to the database's project as its own sessions'
 * answers are: a project past its bound there has the connection closed (as a session's client that stops reading
 * is), so relayed connections cannot hold more of this process than the project may. An owner that cannot be reached
 * closes the client 1013 with DATABASE_MOVING (nothing ran: reconnect); either side closing closes the other.
 */
export function relayWebSocket(client: WebSocket, target: string, early: readonly WsFrame[], options: RelayOptions): void {
  const { memory, database } = options;
  // The owner is another replica: its answers are bounded there (CW_DB_MAX_RESPONSE_BYTES, as JSON), not by the
  // request bound this server reads clients' messages with.
  const upstream = new WebSocket(target, client.protocol ? [client.protocol] : [], {
    headers: { [FORWARDED_HEADER]: '1' },
    perMessageDeflate: false,
    handshakeTimeout: options.handshakeTimeoutMs ?? 10_000,
  });
  // Charged to the project until written out, or until the connection is gone (then given back once, whatever the
  // send callbacks still say).
  let held = 0;
  let closed = false;
  const charge = (bytes: number) => {
    if (closed) return;
    held += bytes;
    memory.charge(database, bytes);
    // As the owner does with a client that stops reading: the connection goes, not the process's memory.
    if (memory.over(database)) {
      client.terminate();
      upstream.terminate();
    }
  };
  const release = (bytes: number) => {
    if (closed) return;
    held -= bytes;
    memory.release(database, bytes);
  };
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
  let pending: WsFrame[] | undefined = [];

  const sendToOwner = (frame: WsFrame) => {
    const bytes = rawBytes(frame.data);
    upstream.send(frame.data, { binary: frame.isBinary }, () => {
      toOwner.sent(bytes);
      release(bytes);
    });
  };
  const fromClient = (frame: WsFrame) => {
    const bytes = rawBytes(frame.data);
    toOwner.add(bytes);
    charge(bytes);
    if (pending) pending.push(frame);
    else sendToOwner(frame);
  };
  for (const frame of early) fromClient(frame);
  client.on('message', (data, isBinary) => fromClient({ data, isBinary }));
  upstream.on('open', () => {
    const early = pending ?? [];
    pending = undefined;
    for (const frame of early) sendToOwner(frame);
  });
  upstream.on('message', (data, isBinary) => {
    const bytes = rawBytes(data);
    toClient.add(bytes);
    charge(bytes);
    client.send(data, { binary: isBinary }, () => {
      toClient.sent(bytes);
      release(bytes);
    });
  });
  upstream.on('close', (code, reason) => closeWith(client, code, reason.toString()));
  client.on('close', (code, reason) => {
    closeWith(upstream, code, reason.toString());
    if (held > 0) memory.release(database, held);
    closed = true;
  });
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
