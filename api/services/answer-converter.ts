import { Worker } from 'node:worker_threads';
import { interpretAnswer, type AnswerOutcome, type QueryResult } from './hrana-answer.ts';

const THREAD_ENTRY = new URL('./answer-thread.ts', import.meta.url);

/** An answer converted: the route's JSON body, or what the answer says instead of results. */
export type ConvertedAnswer = { readonly json: Buffer } | Exclude<AnswerOutcome, { results: QueryResult[] }>;

/** A job for the thread, and its answer (`answer-thread.ts`). */
export interface ThreadJob {
  readonly id: number;
  readonly bytes: ArrayBuffer;
  readonly statements: number;
}
export type ThreadAnswer =
  | { readonly id: number; readonly json: ArrayBuffer }
  | { readonly id: number; readonly outcome: Exclude<AnswerOutcome, { results: QueryResult[] }> }
  | { readonly id: number; readonly error: string };

/** The thread could not convert an answer (or ended while it did): the statements ran, their answer is lost. */
export class AnswerConversionError extends Error {
  override readonly name = 'AnswerConversionError';
}

interface Thread {
  readonly worker: Worker;
  /** Its jobs not answered yet: failed with it if it ends, and only those. */
  readonly pending: Map<number, { resolve: (answer: ConvertedAnswer) => void; reject: (error: Error) => void }>;
}

/** Answers up to this size are converted on the caller's thread: a thread's round trip costs more than they do. */
export const INLINE_ANSWER_BYTES = 64 * 1024;

/**
 * Converts cw-db's answers to the query route's JSON. Parsing a large answer and writing it again is the route's
 * costliest work (some 4 ms a MiB here), and on the API's one event loop a project reading 16 MiB answers one after
 * another slowed every tenant's requests several-fold (a hostile run: p99 of another project's `SELECT 1` 41 →
 * 908 ms). Answers past {@link INLINE_ANSWER_BYTES} are converted on one worker thread, in the order they come (the
 * query route's `AnswerBudget` bounds how many bytes wait for it); the event loop only moves their bytes.
 */
export class AnswerConverter {
  #thread: Thread | undefined;
  #closed = false;
  #nextId = 0;

  /**
   * Converts `bytes`, which are moved to the thread when they are a buffer of their own: unusable after. Rejects
   * with `AnswerConversionError` when the thread could not (one answer's failure fails that answer alone).
   */
  convert(bytes: Buffer, statements: number): Promise<ConvertedAnswer> {
    if (bytes.byteLength <= INLINE_ANSWER_BYTES) {
      try {
        return Promise.resolve(convertHere(bytes, statements));
      } catch (err) {
        return Promise.reject(new AnswerConversionError(String(err)));
      }
    }
    if (this.#closed) return Promise.reject(new AnswerConversionError('the answer converter is closed'));
    const id = this.#nextId++;
    const own = transferable(bytes);
    return new Promise((resolve, reject) => {
      const thread = this.#current();
      thread.pending.set(id, { resolve, reject });
      thread.worker.postMessage({ id, bytes: own, statements } satisfies ThreadJob, [own]);
    });
  }

  /** Stops the thread; conversions under way fail, and later ones are refused. */
  async close(): Promise<void> {
    this.#closed = true;
    const thread = this.#thread;
    this.#thread = undefined;
    await thread?.worker.terminate();
  }

  #current(): Thread {
    if (this.#thread) return this.#thread;
    const worker = new Worker(THREAD_ENTRY);
    // Never what keeps the process alive.
    worker.unref();
    const thread: Thread = { worker, pending: new Map() };
    worker.on('message', (answer: ThreadAnswer) => {
      const pending = thread.pending.get(answer.id);
      thread.pending.delete(answer.id);
      if ('error' in answer) pending?.reject(new AnswerConversionError(answer.error));
      else pending?.resolve('json' in answer ? { json: Buffer.from(answer.json) } : answer.outcome);
    });
    const fail = (why: string) => {
      // The next conversion starts a new thread; this one's jobs fail, none of the next one's.
      if (this.#thread === thread) this.#thread = undefined;
      for (const { reject } of thread.pending.values()) reject(new AnswerConversionError(why));
      thread.pending.clear();
    };
    worker.on('error', (err) => fail(`the thread converting database answers failed: ${String(err)}`));
    worker.on('exit', (code) => fail(`the thread converting database answers ended (code ${code})`));
    this.#thread = thread;
    return thread;
  }
}

/** An answer converted on this thread. */
export function convertHere(bytes: Uint8Array, statements: number): ConvertedAnswer {
  const outcome = interpretAnswer(bytes, statements);
  return 'results' in outcome ? { json: Buffer.from(JSON.stringify({ results: outcome.results })) } : outcome;
}

/** The memory of `bytes` to move to another thread: its own buffer, or a copy when it is a slice of a larger one. */
export function transferable(bytes: Uint8Array): ArrayBuffer {
  const buffer = bytes.buffer as ArrayBuffer;
  return bytes.byteOffset === 0 && bytes.byteLength === buffer.byteLength ? buffer : buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength);
}
