// What a project reading large answers on the query route costs every other tenant of the API process: the delay of
// its event loop (what each other request waits for) while 16 MB answers are converted one after another, on the
// loop (as before 447ed0f1) and on the converter's worker thread (as the route does), alternately. Prints the
// loop's delay p50/p99/max and the time per answer for each, and the ratios.
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { AnswerConverter, convertHere } from '../api/services/answer-converter.ts';

const ROUNDS = Number(process.argv.find((a) => a.startsWith('--rounds='))?.slice('--rounds='.length) ?? 6);
const ANSWERS = 10;
/** cw-db's largest answer by default (16 MiB), as one SELECT of 8,000 rows of 2 KB. */
const ANSWER = Buffer.from(
  JSON.stringify({
    baton: null,
    results: [
      {
        type: 'ok',
        response: {
          type: 'execute',
          result: { cols: [{ name: 'v' }], rows: Array.from({ length: 8000 }, () => [{ type: 'text', value: 'x'.repeat(2000) }]), affected_row_count: 0, last_insert_rowid: null },
        },
      },
      { type: 'ok', response: { type: 'close' } },
    ],
  }),
);

interface Figures {
  p50: number;
  p99: number;
  max: number;
  msPerAnswer: number;
}

async function round(converter: AnswerConverter, onThread: boolean): Promise<Figures> {
  const delay = monitorEventLoopDelay({ resolution: 1 });
  delay.enable();
  const began = performance.now();
  for (let i = 0; i < ANSWERS; i++) {
    // A copy each time, on the loop in both modes: the route's read of the answer's bytes (the thread takes them over).
    const bytes = Buffer.from(ANSWER);
    const converted = onThread ? await converter.convert(bytes, 1) : convertHere(bytes, 1);
    if (!('json' in converted)) throw new Error('the answer did not convert');
    await nextTurn();
  }
  const ms = performance.now() - began;
  delay.disable();
  return { p50: delay.percentile(50) / 1e6, p99: delay.percentile(99) / 1e6, max: delay.max / 1e6, msPerAnswer: ms / ANSWERS };
}

const converter = new AnswerConverter();
await converter.convert(Buffer.from(ANSWER), 1); // the thread started before the first round
const runs = { loop: [] as Figures[], thread: [] as Figures[] };
for (let i = 0; i < ROUNDS; i++) {
  runs.loop.push(await round(converter, false));
  runs.thread.push(await round(converter, true));
}
await converter.close();
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const of = (list: Figures[], key: keyof Figures) => median(list.map((f) => f[key]));
process.stdout.write(`query answers converted: ${ANSWERS} answers of ${(ANSWER.length / 1e6).toFixed(1)} MB one after another, ${ROUNDS} alternating rounds, medians\n`);
for (const [name, list] of Object.entries(runs)) {
  process.stdout.write(
    `  on the ${name.padEnd(6)} event loop delay p50 ${of(list, 'p50').toFixed(1)} ms, p99 ${of(list, 'p99').toFixed(1)} ms, max ${of(list, 'max').toFixed(1)} ms; ${of(list, 'msPerAnswer').toFixed(1)} ms an answer\n`,
  );
}
process.stdout.write(
  `  on the thread: ${(of(runs.thread, 'p99') / of(runs.loop, 'p99')).toFixed(2)}× the loop's p99 delay, ${(of(runs.thread, 'msPerAnswer') / of(runs.loop, 'msPerAnswer')).toFixed(2)}× the time an answer\n`,
);
