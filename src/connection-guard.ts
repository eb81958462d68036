// Every open connection holds a file descriptor of the process serving it. A client holding tens of thousands of
// idle ones (a hostile review against `make dev`) ran cw-runtime, cw-api and cw-db out of descriptors: every
// tenant's requests were refused, and the runtime, unable to reach its own workerd, killed it and could not start
// it again. So a process's listeners take at most so many connections in all, fewer than it may open (and, where
// set, one peer address fewer still): past that a new connection is closed at once, and the process keeps the
// descriptors its own work needs.
import { readFileSync } from 'node:fs';
import type { Server } from 'node:net';
import { KeyedSlots } from './collections/keyed-slots.ts';
import type { EnvReader } from './config/env.ts';

export interface ConnectionLimits {
  /** Connections a listener holds at once, in all. */
  readonly total: number;
  /** Connections one peer address holds at once. */
  readonly perPeer: number;
}

/** The process's limit on open files (`ulimit -n`, soft), from /proc; 1024 where it cannot be read. */
export function openFileLimit(limits = readProcLimits()): number {
  const line = limits?.split('\n').find((l) => l.startsWith('Max open files'));
  const soft = line?.slice('Max open files'.length).trim().split(/\s+/)[0];
  const value = soft === undefined || soft === 'unlimited' ? NaN : Number(soft);
  return Number.isFinite(value) && value > 0 ? value : soft === 'unlimited' ? 1 << 20 : 1024;
}

function readProcLimits(): string | undefined {
  try {
    return readFileSync('/proc/self/limits', 'utf8');
  } catch {
    return undefined;
  }
}

/**
 * `<prefix>_MAX_CONNECTIONS` (default half the open-file limit, at most 16,384: the other half for the process's
 * own files, sockets and watches) and `<prefix>_MAX_CONNECTIONS_PER_PEER` (default the same: no bound of its own,
 * since behind an ingress, a load balancer or the runtime's pods every client shares a few addresses; set it
 * lower where clients connect directly).
 */
export function connectionLimitsFromEnv(read: EnvReader, prefix: string, fileLimit = openFileLimit()): ConnectionLimits {
  const defaults = defaultConnectionLimits(fileLimit);
  const total = read.integer(`${prefix}_MAX_CONNECTIONS`, defaults.total, { min: 16, max: 1_000_000 });
  const perPeer = read.integer(`${prefix}_MAX_CONNECTIONS_PER_PEER`, total, { min: 1, max: total });
  return { total, perPeer };
}

/** The defaults of {@link connectionLimitsFromEnv}, for a process with `fileLimit` descriptors. */
export function defaultConnectionLimits(fileLimit = openFileLimit()): ConnectionLimits {
  const total = Math.max(64, Math.min(16_384, Math.floor(fileLimit / 2)));
  return { total, perPeer: total };
}

/**
 * One bound shared by every listener it guards (a process's HTTP and HTTPS entry points together: each holding
 * the whole of it would pass the process's limit): a connection past either bound is closed as it arrives.
 */
export class ConnectionGuard {
  readonly #slots: KeyedSlots;

  constructor(limits: ConnectionLimits) {
    this.#slots = new KeyedSlots({ total: limits.total, perKey: limits.perPeer });
  }

  /** Connections held now, across the guarded listeners. */
  get held(): number {
    return this.#slots.held;
  }

  guard(server: Server): void {
    server.on('connection', (socket) => {
      const slot = this.#slots.take(socket.remoteAddress ?? '');
      if ('release' in slot) socket.once('close', slot.release);
      else socket.destroy();
    });
  }
}

/** Holds one `server` to `limits` (see {@link ConnectionGuard}). */
export function guardConnections(server: Server, limits: ConnectionLimits): void {
  new ConnectionGuard(limits).guard(server);
}
