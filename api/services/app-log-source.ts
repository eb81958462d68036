import { EventSourceParserStream } from 'eventsource-parser/stream';
import type { AppLogEntry } from '../../src/runtime-contract/app-logs.ts';
import type { RuntimeReplicaView } from '../../src/platform/runtime-replicas.ts';

/** An entry as the API streams it: which replica served the request, then the entry. */
export type ReplicaLogEntry = AppLogEntry & { readonly replica: string };

export type AppLogEvent =
  | { readonly type: 'log'; readonly entry: ReplicaLogEntry }
  /** Every replica's recent entries have been given: from now on entries arrive as they happen. */
  | { readonly type: 'live'; readonly replicas: number }
  | { readonly type: 'dropped'; readonly replica: string; readonly count: number };

export interface AppLogOptions {
  /** Recent entries per replica before the live ones (the runtime keeps at most 100). */
  readonly recent: number;
  /** Follow the live entries; otherwise end after the recent ones. */
  readonly follow: boolean;
  readonly signal: AbortSignal;
}

/** Internal: a replica has given its recent entries (or ended), or the first screen stopped waiting. */
type Progress = { readonly type: 'caught-up' } | { readonly type: 'deadline' };

const isProgress = (event: Incoming): event is Progress => event.type === 'caught-up' || event.type === 'deadline';

/** How long the first screen waits for a replica's recent entries before going on without them. */
const RECENT_WAIT_MS = 3000;

/**
 * What the first screen keeps of every replica's recent entries together (their JSON), the newest: a runtime keeps
 * up to a MiB of an app's, and a stream must not hold every replica's at once before it sends the first.
 */
const FIRST_SCREEN_BYTES = 1024 * 1024;

/** An event as read from a replica: a log entry carries the size of its JSON, for the first screen's budget. */
type Incoming = (AppLogEvent & { readonly bytes?: number }) | Progress;

/**
 * An app's logs from every live cw-runtime replica, each read from its status port (`statusURL` in its
 * RuntimeReplica) as `GET /apps/{namespace}/{app}/logs`: the recent entries of all of them merged in time
 * order, then each replica's new entries as they arrive. Replicas that start later are not followed (open the
 * stream again); an unreachable replica is left out. The address comes from a RuntimeReplica, which only
 * the runtime's own pods may write (the chart's admission policy), never from the caller; the request carries
 * the runtime status token (`statusToken`), without which a replica answers 401 and is left out too.
 */
export class AppLogSource {
  readonly #replicas: Pick<RuntimeReplicaView, 'live'>;
  readonly #headers: Record<string, string>;

  constructor(replicas: Pick<RuntimeReplicaView, 'live'>, statusToken?: string) {
    this.#replicas = replicas;
    this.#headers = { accept: 'text/event-stream', ...(statusToken ? { authorization: `Bearer ${statusToken}` } : {}) };
  }

  async *open(project: string, app: string, options: AppLogOptions): AsyncGenerator<AppLogEvent> {
    const targets = this.#replicas.live().flatMap((r) => (r.spec.statusURL ? [{ name: r.metadata?.name ?? '', url: r.spec.statusURL }] : []));
    const queue = new EventQueue<Incoming>();
    const path = `/apps/${encodeURIComponent(project)}/${encodeURIComponent(app)}/logs?recent=${options.recent}${options.follow ? '' : '&follow=false'}`;
    let open = targets.length;
    for (const target of targets) {
      let caughtUp = false;
      const emit = (event: Incoming) => {
        if (event.type === 'caught-up') caughtUp = true;
        queue.push(event);
      };
      void readReplica(target.name, `${target.url}${path}`, this.#headers, options.signal, emit).finally(() => {
        if (!caughtUp) emit({ type: 'caught-up' });
        open -= 1;
        if (open === 0) queue.close();
      });
    }
    if (targets.length === 0) queue.close();

    // The first screen: every replica's recent entries, merged by time, the newest FIRST_SCREEN_BYTES of them.
    let recent: Array<{ entry: ReplicaLogEntry; bytes: number }> = [];
    let recentBytes = 0;
    const keepNewest = () => {
      recent.sort((a, b) => a.entry.time.localeCompare(b.entry.time));
      let from = 0;
      while (recentBytes > FIRST_SCREEN_BYTES && from < recent.length) recentBytes -= recent[from++]!.bytes;
      recent = recent.slice(from);
    };
    let caughtUp = 0;
    const deadline = setTimeout(() => queue.push({ type: 'deadline' }), RECENT_WAIT_MS);
    const early: AppLogEvent[] = [];
    try {
      while (caughtUp < targets.length) {
        const event = await queue.next();
        if (!event) break;
        if (event.type === 'caught-up' || event.type === 'deadline') {
          caughtUp = event.type === 'deadline' ? targets.length : caughtUp + 1;
        } else if (event.type === 'log') {
          // A replica already following adds to the first screen too; trimmed as it passes twice the budget.
          recent.push({ entry: event.entry, bytes: event.bytes ?? 0 });
          recentBytes += event.bytes ?? 0;
          if (recentBytes > 2 * FIRST_SCREEN_BYTES) keepNewest();
        } else {
          early.push(event);
        }
      }
    } finally {
      clearTimeout(deadline);
    }
    keepNewest();
    for (const { entry } of recent) yield { type: 'log', entry };
    if (!options.follow) return;
    yield { type: 'live', replicas: targets.length };
    yield* early;
    for (let event = await queue.next(); event; event = await queue.next()) if (!isProgress(event)) yield withoutBytes(event);
  }
}

/** Reads one replica's stream, calling `emit` with its events and `caught-up` once its recent entries are given. */
async function readReplica(replica: string, url: string, headers: Record<string, string>, signal: AbortSignal, emit: (event: Incoming) => void): Promise<void> {
  let response: Response;
  try {
    response = await fetch(url, { headers, signal, redirect: 'error' });
  } catch {
    return;
  }
  if (!response.ok || !response.body) {
    await response.body?.cancel();
    return;
  }
  try {
    const events = response.body.pipeThrough(new TextDecoderStream()).pipeThrough(new EventSourceParserStream());
    for await (const message of events) {
      if (message.event === 'live') emit({ type: 'caught-up' });
      else if (message.event === 'log') emit({ type: 'log', entry: { replica, ...(JSON.parse(message.data) as AppLogEntry) }, bytes: message.data.length });
      else if (message.event === 'dropped') emit({ type: 'dropped', replica, count: (JSON.parse(message.data) as { count: number }).count });
    }
  } catch {
    // The replica went away or the caller left: its part of the stream ends.
  }
}

/** The event as the stream gives it (the size was the first screen's business). */
function withoutBytes(event: AppLogEvent & { readonly bytes?: number }): AppLogEvent {
  if (event.type !== 'log') return event;
  return { type: 'log', entry: event.entry };
}

/** A queue read by one consumer: `next` waits for the next item, or undefined once closed and drained. */
class EventQueue<T> {
  readonly #items: T[] = [];
  #waiter: ((item: T | undefined) => void) | undefined;
  #closed = false;

  push(item: T): void {
    if (this.#waiter) {
      const waiter = this.#waiter;
      this.#waiter = undefined;
      waiter(item);
    } else {
      this.#items.push(item);
    }
  }

  close(): void {
    this.#closed = true;
    this.#waiter?.(undefined);
    this.#waiter = undefined;
  }

  next(): Promise<T | undefined> {
    if (this.#items.length > 0) return Promise.resolve(this.#items.shift());
    if (this.#closed) return Promise.resolve(undefined);
    return new Promise((resolve) => (this.#waiter = resolve));
  }
}
