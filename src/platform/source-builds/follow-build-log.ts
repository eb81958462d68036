// Reading a build's log for the API: all of it so far, or followed as the build writes it.
import { setTimeout as sleep } from 'node:timers/promises';
import type { ObjectStore } from '../../object-store/object-store.ts';
import { FLUSH_INTERVAL_MS, readBuildLog, type LogEnd } from './build-log.ts';

/** The whole log written so far (at most MAX_BUILD_LOG_BYTES and its truncation line), and its end if over. */
export async function readWholeBuildLog(store: ObjectStore, namespace: string, build: string): Promise<{ text: string; end: LogEnd | undefined }> {
  const parts: string[] = [];
  let cursor: string | undefined;
  for (;;) {
    const read = await readBuildLog(store, namespace, build, cursor);
    parts.push(read.text);
    if (read.end || read.cursor === cursor) return { text: parts.join(''), end: read.end };
    cursor = read.cursor;
  }
}

export type LogEvent = { readonly type: 'log'; readonly text: string } | { readonly type: 'end'; readonly end: LogEnd };

export interface FollowOptions {
  readonly signal: AbortSignal;
  /** How often the bucket is read for new chunks (default the writer's flush interval, 500 ms). */
  readonly intervalMs?: number;
  /**
   * How the build ended by its own status (or that it is gone), undefined while it runs. A build cancelled
   * before it started, or whose runner was lost, may never write the log's end marker: once this says it is
   * over and a few more reads found nothing, the follower ends with it.
   */
  readonly ended: () => LogEnd | undefined;
  /** Reads after `ended` answers before it is believed over the missing marker (default 3). */
  readonly graceReads?: number;
  /** Chunks (64 KiB each at most) one read takes, and so one event gives (default 64: the whole log in one). */
  readonly maxChunks?: number;
}

/**
 * The log as it is written: the text so far, then each new part as the bucket shows it, then the end
 * (the marker's, or the build's own state). Stops quietly when `signal` aborts.
 */
export async function* followBuildLog(store: ObjectStore, namespace: string, build: string, options: FollowOptions): AsyncGenerator<LogEvent> {
  const interval = options.intervalMs ?? FLUSH_INTERVAL_MS;
  const grace = options.graceReads ?? 3;
  let cursor: string | undefined;
  let quietSinceOver = 0;
  while (!options.signal.aborted) {
    const read = await readBuildLog(store, namespace, build, cursor, options.maxChunks);
    if (read.text !== '') yield { type: 'log', text: read.text };
    if (read.end) {
      yield { type: 'end', end: read.end };
      return;
    }
    const progressed = read.cursor !== cursor;
    cursor = read.cursor;
    if (progressed) {
      quietSinceOver = 0;
      continue; // more may be waiting (a read takes at most 64 chunks)
    }
    const over = options.ended();
    if (over && ++quietSinceOver > grace) {
      yield { type: 'end', end: over };
      return;
    }
    try {
      await sleep(interval, undefined, { signal: options.signal });
    } catch {
      return; // aborted: the reader went away
    }
  }
}
