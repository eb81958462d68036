/**
 * What WebSocket connections may hold in cw-db's main process before their hello is accepted: nothing of theirs is
 * charged to a project until then, and the upgrade needs no token, so a client that opens connections and sends big
 * unfinished messages on them, never a hello, is bounded here. `ws` buffers a message's fragments up to its
 * `maxPayload` (the body bound, 10 MiB) and cannot lower that per connection, so the bytes read from each connection's
 * socket are counted until its hello is accepted, and a connection past its budget, or past the total, is dropped.
 */
export interface PreHelloLimits {
  /** Bytes one connection may send before its hello is accepted (its hello and what the client sent right behind it). */
  readonly bytes: number;
  /** Bytes all connections without an accepted hello may have sent, together. */
  readonly totalBytes: number;
  /** Connections without an accepted hello one peer address may hold at once. */
  readonly perAddress: number;
  /** Time from the upgrade within which a connection's hello must be accepted. */
  readonly timeoutMs: number;
}

/** The defaults (docs/databases.md, "Hrana over WebSocket"). */
export const DEFAULT_PRE_HELLO_LIMITS: PreHelloLimits = Object.freeze({
  // A client sends its hello first, and its requests right behind it: reading stops at the hello until it is checked,
  // so at most one socket read (64 KiB) of them is counted.
  bytes: 128 * 1024,
  totalBytes: 16 * 1024 * 1024,
  perAddress: 64,
  timeoutMs: 5_000,
});

/** The connections without an accepted hello, and what they hold. */
export class PreHelloBudget {
  readonly limits: PreHelloLimits;
  #heldBytes = 0;
  readonly #perAddress = new Map<string, number>();

  constructor(limits: PreHelloLimits = DEFAULT_PRE_HELLO_LIMITS) {
    this.limits = limits;
  }

  /** Bytes the connections without an accepted hello hold now. */
  get heldBytes(): number {
    return this.#heldBytes;
  }

  /** Connections without an accepted hello now. */
  get connections(): number {
    let count = 0;
    for (const n of this.#perAddress.values()) count += n;
    return count;
  }

  /** A new connection from `address`, or undefined when that address holds `perAddress` connections without a hello. */
  open(address: string): PreHelloConnection | undefined {
    const count = this.#perAddress.get(address) ?? 0;
    if (count >= this.limits.perAddress) return undefined;
    this.#perAddress.set(address, count + 1);
    return new PreHelloConnection({
      received: (bytes) => {
        this.#heldBytes += bytes;
        return this.#heldBytes <= this.limits.totalBytes;
      },
      end: (bytes) => {
        this.#heldBytes -= bytes;
        const left = (this.#perAddress.get(address) ?? 1) - 1;
        if (left > 0) this.#perAddress.set(address, left);
        else this.#perAddress.delete(address);
      },
      bytes: this.limits.bytes,
    });
  }
}

/** One connection until its hello is accepted or it closes. */
export class PreHelloConnection {
  readonly #budget: { received: (bytes: number) => boolean; end: (bytes: number) => void; bytes: number };
  #bytes = 0;
  #ended = false;

  constructor(budget: { received: (bytes: number) => boolean; end: (bytes: number) => void; bytes: number }) {
    this.#budget = budget;
  }

  /** Counts `bytes` read from the connection; false once past its budget or the total (the caller drops it). */
  received(bytes: number): boolean {
    if (this.#ended) return true;
    this.#bytes += bytes;
    const withinTotal = this.#budget.received(bytes);
    return withinTotal && this.#bytes <= this.#budget.bytes;
  }

  /** Its hello was accepted, or it closed: what it held is given back (once). */
  end(): void {
    if (this.#ended) return;
    this.#ended = true;
    this.#budget.end(this.#bytes);
  }
}
