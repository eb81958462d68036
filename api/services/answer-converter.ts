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
export type ThreadAnswer = { readonly id: number; readonly json: ArrayBuffer } | { readonly id: number; readonly outcome: Exclude<AnswerOutcome, { results: QueryResult[] }> };

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
  #worker: Worker | undefined;
  #nextId = 0;
  readonly #pending = new Map<number, { resolve: (answer: ConvertedAnswer) => void; reject: (error: Error) => void }>();

  /** Converts `bytes`, which are moved to the thread when they are a buffer of their own: unusable after. */
  convert(bytes: Buffer, statements: number): Promise<ConvertedAnswer> {
    if (bytes.byteLength <= INLINE_ANSWER_BYTES) return Promise.resolve(convertHere(bytes, statements));
    const id = this.#nextId++;
    // Moved to the thread when the buffer is its own, copied once when it is a slice of a larger one.
    const buffer = bytes.buffer as ArrayBuffer;
    const own = bytes.byteOffset === 0 && bytes.byteLength === buffer.byteLength ? buffer : buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength);
    return new Promise((resolve, reject) => {
      this.#pending.set(id, { resolve, reject });
      this.#thread().postMessage({ id, bytes: own, statements } satisfies ThreadJob, [own]);
    });
  }

  /** Stops the thread; conversions under way fail. */
  async close(): Promise<void> {
    const worker = this.#worker;
    this.#worker = undefined;
    await worker?.terminate();
  }

  #thread(): Worker {
    if (this.#worker) return this.#worker;
    const worker = new Worker(THREAD_ENTRY);
    // Never what keeps the process alive.
    worker.unref();
    worker.on('message', (answer: ThreadAnswer) => {
      const pending = this.#pending.get(answer.id);
      this.#pending.delete(answer.id);
      pending?.resolve('json' in answer ? { json: Buffer.from(answer.json) } : answer.outcome);
    });
    const fail = (error: Error) => {
      if (this.#worker === worker) this.#worker = undefined;
      for (const { reject } of this.#pending.values()) reject(error);
      this.#pending.clear();
    };
    worker.on('error', fail);
    worker.on('exit', (code) => fail(new Error(`the thread converting database answers ended (code ${code})`)));
    this.#worker = worker;
    return worker;
  }
}

/** An answer converted on this thread. */
export function convertHere(bytes: Uint8Array, statements: number): ConvertedAnswer {
  const outcome = interpretAnswer(bytes, statements);
  return 'results' in outcome ? { json: Buffer.from(JSON.stringify({ results: outcome.results })) } : outcome;
}
