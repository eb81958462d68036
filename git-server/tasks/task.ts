// One run of an operation on one repository: its state, progress and log tail, the listeners following it live
// (the SSE streams), and how it ended. Created and kept by TaskRegistry.
import { randomBytes } from 'node:crypto';
import type { OperationId, UnitContext, UnitResult } from '../../src/repo-maintenance/operation.ts';
import { endOf, type TaskLogger } from './task-outcome.ts';
import { LOG_TAIL_LINES, type TaskProgress, type TaskRecord, type TaskState, type TaskTrigger } from './task-record.ts';

/** What a listener hears while a task runs; `ended` is the last event, with the final record. */
export type TaskEvent = { readonly kind: 'progress'; readonly progress: TaskProgress } | { readonly kind: 'log'; readonly line: string } | { readonly kind: 'ended'; readonly record: TaskRecord };

export type TaskListener = (event: TaskEvent) => void;

/** A longer log line is cut: the tail stays small whatever a unit prints. */
const MAX_LOG_LINE = 2000;

export interface TaskOptions {
  readonly repo: string;
  readonly operation: OperationId;
  readonly instance: string;
  readonly trigger: TaskTrigger;
  readonly now: () => Date;
  readonly log: TaskLogger;
  /** Called once as the task ends, before its listeners hear of it (the registry moves it to the recent ones). */
  readonly onEnded?: (task: Task) => void;
}

export class Task {
  readonly id = randomBytes(12).toString('base64url');
  readonly repo: string;
  readonly operation: OperationId;
  readonly trigger: TaskTrigger;
  /** Resolves (never rejects) with the final record once the task has ended. */
  readonly done: Promise<TaskRecord>;
  readonly #options: TaskOptions;
  readonly #abort = new AbortController();
  readonly #startedAt: Date;
  readonly #listeners = new Set<TaskListener>();
  readonly #logTail: string[] = [];
  #progress: TaskProgress | null = null;
  #state: TaskState = 'running';
  #endedAt: Date | null = null;
  #summary: string | null = null;

  /** Starts `run` at once; `done` settles when it has. */
  constructor(options: TaskOptions, run: (ctx: UnitContext) => Promise<UnitResult>) {
    this.#options = options;
    this.repo = options.repo;
    this.trigger = options.trigger;
    this.operation = options.operation;
    this.#startedAt = options.now();
    const ctx: UnitContext = {
      signal: this.#abort.signal,
      progress: (done, total, phase) => this.#reportProgress(done, total, phase),
      log: (line) => this.#reportLog(line),
    };
    options.log.info({ task: this.id, repo: this.repo, operation: this.operation, trigger: options.trigger }, 'task started');
    // Called now (an exception becomes a rejection): a unit sees an interruption that comes before its first await.
    this.done = (async () => run(ctx))().then(
      (result) => this.#end({ state: 'succeeded', summary: result.summary }),
      (error: unknown) => this.#end(endOf(error, this.#abort.signal, options.log, this.#context())),
    );
  }

  get state(): TaskState {
    return this.#state;
  }

  /** Asks the task to stop: its unit sees the signal aborted and ends `interrupted` at its next step. */
  interrupt(reason: Error = new Error('the instance is shutting down')): void {
    this.#abort.abort(reason);
  }

  record(): TaskRecord {
    const end = this.#endedAt ?? this.#options.now();
    return {
      id: this.id,
      operation: this.operation,
      repo: this.repo,
      instance: this.#options.instance,
      trigger: this.#options.trigger,
      state: this.#state,
      started_at: this.#startedAt.toISOString(),
      ended_at: this.#endedAt?.toISOString() ?? null,
      elapsed_ms: Math.max(0, end.getTime() - this.#startedAt.getTime()),
      summary: this.#summary,
      progress: this.#progress,
      log_tail: [...this.#logTail],
    };
  }

  /**
   * Calls `listener` with each event from now on, `ended` last; answers the unsubscribe. A task that has ended
   * calls nothing (read `record()` first). A listener that throws is logged and dropped; the task goes on.
   */
  subscribe(listener: TaskListener): () => void {
    if (this.#state !== 'running') return () => {};
    this.#listeners.add(listener);
    return () => {
      this.#listeners.delete(listener);
    };
  }

  /** How many listeners follow the task (tests check that a closed stream let go). */
  get listenerCount(): number {
    return this.#listeners.size;
  }

  #reportProgress(done: number, total: number, phase: string): void {
    if (this.#state !== 'running') return;
    const count = (n: number) => (Number.isFinite(n) && n > 0 ? n : 0);
    this.#progress = { done: count(done), total: count(total), phase: String(phase) };
    this.#emit({ kind: 'progress', progress: this.#progress });
  }

  #reportLog(text: string): void {
    if (this.#state !== 'running') return;
    const line = String(text);
    const kept = line.length > MAX_LOG_LINE ? `${line.slice(0, MAX_LOG_LINE)}…` : line;
    this.#logTail.push(kept);
    if (this.#logTail.length > LOG_TAIL_LINES) this.#logTail.splice(0, this.#logTail.length - LOG_TAIL_LINES);
    this.#emit({ kind: 'log', line: kept });
  }

  #end(outcome: { state: Exclude<TaskState, 'running'>; summary: string }): TaskRecord {
    this.#state = outcome.state;
    this.#summary = outcome.summary;
    this.#endedAt = this.#options.now();
    const record = this.record();
    this.#options.onEnded?.(this);
    this.#options.log.info({ ...this.#context(), state: record.state, elapsedMs: record.elapsed_ms }, 'task ended');
    this.#emit({ kind: 'ended', record });
    this.#listeners.clear();
    return record;
  }

  #emit(event: TaskEvent): void {
    for (const listener of this.#listeners) {
      try {
        listener(event);
      } catch (error) {
        this.#listeners.delete(listener);
        this.#options.log.error({ err: error, ...this.#context() }, 'task listener failed; dropped');
      }
    }
  }

  #context(): Record<string, string> {
    return { task: this.id, repo: this.repo, operation: this.operation };
  }
}
