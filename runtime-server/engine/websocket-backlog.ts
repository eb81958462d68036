import { Socket } from 'node:net';
import type { Duplex } from 'node:stream';

/** What an app may have sent on one WebSocket that its client has not read yet, by default. */
export const DEFAULT_BACKLOG_PER_WEBSOCKET = 16 * 1024 * 1024;
/** What every WebSocket the entry point relays may hold so together, by default. */
export const DEFAULT_BACKLOG_TOTAL = 64 * 1024 * 1024;
/** How long a client may take no more of what an app sent before closing its WebSocket, once the app has closed it. */
export const FLUSH_TIMEOUT_MS = 30_000;

export interface BacklogBounds {
  readonly perWebSocket: number;
  readonly total: number;
}

interface Relayed {
  /** Whose app sends on it: past the total, the project holding the most loses first. */
  readonly project: string;
  readonly client: Duplex;
  readonly close: () => void;
  /** What it held at its last write or drain: its part of what the relayed WebSockets hold together. */
  counted: number;
}

/**
 * The bytes apps have sent on WebSockets that their clients have not read. Relayed with backpressure, they were
 * queued in workerd, outside any isolate's heap: an app `send()`ing 400 MiB to a client that read nothing took
 * its shard past the memory bound, every co-tenant of the shard with it, and nobody was blamed (found in review).
 * So the entry point reads what workerd sends at once and holds what the client has not taken: a WebSocket whose
 * client lags more than `perWebSocket` behind is closed, and past `total` held together the one lagging most of the
 * project holding the most is (not another tenant's slow reader: found in review).
 * Client to app stays under backpressure: an app that does not read holds its client, not memory.
 */
export class WebSocketBacklogs {
  readonly #bounds: BacklogBounds;
  readonly #relayed = new Set<Relayed>();
  /** What the relayed WebSockets held at their last writes or drains: at least what they hold now. */
  #held = 0;

  constructor(bounds: BacklogBounds = { perWebSocket: DEFAULT_BACKLOG_PER_WEBSOCKET, total: DEFAULT_BACKLOG_TOTAL }) {
    this.#bounds = bounds;
  }

  /**
   * Sends what `app` (workerd's side) writes on to `client`, without waiting for it; `close` ends both. Once the app
   * has closed its side, what the client has not read still goes out (its last messages, the close frame), and then
   * the connection ends; a client that takes nothing more for {@link FLUSH_TIMEOUT_MS} is cut.
   */
  relay(project: string, app: Duplex, client: Duplex, close: () => void): void {
    const relayed: Relayed = { project, client, close, counted: 0 };
    this.#relayed.add(relayed);
    client.once('close', () => this.#forget(relayed));
    client.on('drain', () => this.#count(relayed));
    app.on('data', (chunk: Buffer) => {
      client.write(chunk);
      this.#count(relayed);
      if (client.writableLength > this.#bounds.perWebSocket) close();
      else if (this.#held > this.#bounds.total) this.#shed();
    });
    app.once('close', () => {
      if (client.destroyed) return;
      if (!client.writableEnded) client.end();
      // A connection's idle timer: reading on keeps it.
      if (client instanceof Socket) client.setTimeout(FLUSH_TIMEOUT_MS, close);
    });
  }

  #count(relayed: Relayed): void {
    if (!this.#relayed.has(relayed)) return;
    this.#held += relayed.client.writableLength - relayed.counted;
    relayed.counted = relayed.client.writableLength;
  }

  #forget(relayed: Relayed): void {
    if (!this.#relayed.delete(relayed)) return;
    this.#held -= relayed.counted;
  }

  /**
   * Counts again what each holds now (some drained since), and while past the total closes the WebSocket lagging
   * most of the project holding the most.
   */
  #shed(): void {
    const byProject = new Map<string, { held: number; most: Relayed }>();
    for (const relayed of this.#relayed) {
      this.#count(relayed);
      const project = byProject.get(relayed.project);
      if (!project) byProject.set(relayed.project, { held: relayed.counted, most: relayed });
      else {
        project.held += relayed.counted;
        if (relayed.counted > project.most.counted) project.most = relayed;
      }
    }
    let heaviest: { held: number; most: Relayed } | undefined;
    for (const project of byProject.values()) if (!heaviest || project.held > heaviest.held) heaviest = project;
    if (heaviest && this.#held > this.#bounds.total) {
      this.#forget(heaviest.most);
      heaviest.most.close();
    }
  }
}
