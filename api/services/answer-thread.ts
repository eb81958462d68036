// The worker thread of `AnswerThread`: reads cw-db's answers into the query route's results and writes them as the
// route's JSON, off the API's event loop.
import { parentPort } from 'node:worker_threads';
import { interpretAnswer } from './hrana-answer.ts';
import type { ThreadAnswer, ThreadJob } from './answer-converter.ts';

parentPort?.on('message', ({ id, bytes, statements }: ThreadJob) => {
  let outcome: ReturnType<typeof interpretAnswer>;
  try {
    outcome = interpretAnswer(new Uint8Array(bytes), statements);
  } catch (err) {
    // An answer not shaped as a pipeline's: this job's failure only, the thread goes on.
    parentPort?.postMessage({ id, error: String(err) } satisfies ThreadAnswer);
    return;
  }
  if (!('results' in outcome)) {
    parentPort?.postMessage({ id, outcome } satisfies ThreadAnswer);
    return;
  }
  const json = Buffer.from(JSON.stringify({ results: outcome.results }));
  // A buffer of its own (not a slice of Node's pool), so it is moved to the API's thread, not copied.
  const buffer = json.buffer as ArrayBuffer;
  const owned = json.byteOffset === 0 && json.byteLength === buffer.byteLength ? buffer : buffer.slice(json.byteOffset, json.byteOffset + json.byteLength);
  parentPort?.postMessage({ id, json: owned } satisfies ThreadAnswer, [owned]);
});
