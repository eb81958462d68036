// The worker thread of `AnswerThread`: reads cw-db's answers into the query route's results and writes them as the
// route's JSON, off the API's event loop.
import { parentPort } from 'node:worker_threads';
import { interpretAnswer } from './hrana-answer.ts';
import { transferable, type ThreadAnswer, type ThreadJob } from './answer-converter.ts';

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
  const json = transferable(Buffer.from(JSON.stringify({ results: outcome.results })));
  parentPort?.postMessage({ id, json } satisfies ThreadAnswer, [json]);
});
