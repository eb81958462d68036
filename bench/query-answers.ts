// The API process's memory under many large answers on the query route: 72 SELECTs of 15 MB, 12 from each of six
// projects, all at once, read from an engine that answers at once (cw-db with shards to spare does), through
// runQuery as the route calls it, without and with the route's AnswerBudget, alternately. Each run is a process of
// its own, so its peak RSS is its own. Prints the peak RSS above the process's start and the time, and the ratio.
import { spawn } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { AnswerBudget, ResponseAnswers } from '../api/services/answer-budget.ts';
import { runQuery } from '../api/services/sql-query.ts';

const PROJECTS = 6;
const PER_PROJECT = 12;
const ROWS = 15;
const ROW_BYTES = 1_000_000;
const ROUNDS = Number(process.argv.find((a) => a.startsWith('--rounds='))?.slice('--rounds='.length) ?? 3);

/** A Hrana pipeline answer of ROWS rows of ROW_BYTES, served to every request as soon as its body is read. */
function fastEngine(): Promise<Server> {
  const row = [{ type: 'text', value: 'x'.repeat(ROW_BYTES) }];
  const result = { cols: [{ name: 'v' }], rows: Array.from({ length: ROWS }, () => row), affected_row_count: 0, last_insert_rowid: null, rows_read: ROWS, rows_written: 0 };
  const body = Buffer.from(
    JSON.stringify({
      baton: null,
      base_url: null,
      results: [
        { type: 'ok', response: { type: 'execute', result } },
        { type: 'ok', response: { type: 'close' } },
      ],
    }),
  );
  const server = createServer((request, response) => {
    request.resume().on('end', () => response.writeHead(200, { 'content-type': 'application/json', 'content-length': body.length }).end(body));
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

/** One run, in this process: every query at once; prints {peakMiB, ms, ok} as JSON. */
async function client(dbUrl: string, withBudget: boolean): Promise<void> {
  const budget = new AnswerBudget();
  const start = process.memoryUsage().rss;
  let peak = start;
  const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 5);
  const began = performance.now();
  const outcomes = await Promise.allSettled(
    Array.from({ length: PROJECTS * PER_PROJECT }, async (_, i) => {
      const project = `p${i % PROJECTS}`;
      const held = new ResponseAnswers(budget, project);
      try {
        const results = await runQuery({
          dbUrl,
          tenantId: `${project}-db`,
          token: 'bench',
          statements: [{ sql: 'SELECT v FROM t' }],
          ...(withBudget ? { reserve: (bytes: number, signal: AbortSignal) => held.reserve(bytes, signal) } : {}),
        });
        // As the route answers it: serialized again.
        return JSON.stringify({ results }).length;
      } finally {
        held.end();
      }
    }),
  );
  clearInterval(sampler);
  const ms = performance.now() - began;
  process.stdout.write(`${JSON.stringify({ peakMiB: (peak - start) / 2 ** 20, ms, ok: outcomes.filter((o) => o.status === 'fulfilled').length })}\n`);
}

function runClient(dbUrl: string, withBudget: boolean): Promise<{ peakMiB: number; ms: number; ok: number }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [fileURLToPath(import.meta.url), 'client', dbUrl, withBudget ? 'budget' : 'none'], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString('utf8')));
    child.once('close', (code) => (code === 0 ? resolve(JSON.parse(out) as { peakMiB: number; ms: number; ok: number }) : reject(new Error(`client exited with ${code}`))));
  });
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

if (process.argv[2] === 'client') {
  await client(process.argv[3]!, process.argv[4] === 'budget');
} else {
  const engine = await fastEngine();
  const dbUrl = `http://127.0.0.1:${(engine.address() as AddressInfo).port}/`;
  const runs = { none: [] as { peakMiB: number; ms: number; ok: number }[], budget: [] as { peakMiB: number; ms: number; ok: number }[] };
  for (let round = 0; round < ROUNDS; round++) {
    runs.none.push(await runClient(dbUrl, false));
    runs.budget.push(await runClient(dbUrl, true));
  }
  engine.close();
  const queries = PROJECTS * PER_PROJECT;
  process.stdout.write(`query answers: ${queries} SELECTs of ${(ROWS * ROW_BYTES) / 1e6} MB at once from ${PROJECTS} projects, ${ROUNDS} rounds, medians\n`);
  for (const [name, list] of Object.entries(runs)) {
    process.stdout.write(
      `  ${name.padEnd(6)} peak RSS +${median(list.map((r) => r.peakMiB)).toFixed(0)} MiB, ${median(list.map((r) => r.ms)).toFixed(0)} ms, ${Math.min(...list.map((r) => r.ok))}/${queries} answered\n`,
    );
  }
  const ratio = median(runs.budget.map((r) => r.peakMiB)) / median(runs.none.map((r) => r.peakMiB));
  const time = median(runs.budget.map((r) => r.ms)) / median(runs.none.map((r) => r.ms));
  process.stdout.write(`  with the budget: ${ratio.toFixed(2)}× the peak memory, ${time.toFixed(2)}× the time\n`);
}
