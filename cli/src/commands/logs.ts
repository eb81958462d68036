import type { Command } from 'commander';
import { EventSourceParserStream } from 'eventsource-parser/stream';
import { act, examples, intOption, listOption } from '../command-kit.ts';
import type { Context } from '../context.ts';
import { CliError, UsageError } from '../errors.ts';
import { note, paint, println, terminalSafe } from '../output.ts';

const STATUS_CLASSES = ['2xx', '3xx', '4xx', '5xx', 'exception'];

/** An entry as the logs route streams it (its `log` event; the OpenAPI document describes it in prose). */
export interface LogEntry {
  time: string;
  replica: string;
  buildId: string;
  outcome: string;
  request?: { method: string; url: string };
  status?: number;
  logs: { time: string; level: string; message: string }[];
  exceptions: { time: string; name: string; message: string; stack?: string }[];
}

interface LogsOptions {
  status?: string[];
  search?: string;
  recent?: number;
  follow: boolean;
  json?: boolean;
}

export function registerLogs(program: Command): void {
  examples(
    act(
      program
        .command('logs')
        .argument('<app>', 'app id')
        .description("Follow an app's logs live: each request, its console output and uncaught exceptions (request headers and bodies are never shown)")
        .option('--status <classes>', `only these, comma-separated: ${STATUS_CLASSES.join(', ')}`, listOption)
        .option('--search <text>', 'only requests whose URL, console lines or exceptions contain this text (any case)')
        .option('--recent <n>', 'recent requests per runtime replica to start with (default 50)', intOption(0, 100))
        .option('--no-follow', 'print the recent requests and stop')
        .option('--json', 'one JSON object per request and line, for scripts'),
      logs,
    ),
    ['cw logs web', 'cw logs web --status 5xx,exception', 'cw logs web --search checkout --no-follow', 'cw logs web --json | jq .status'],
  );
}

async function logs(ctx: Context, appId: string, options: LogsOptions): Promise<void> {
  const unknown = options.status?.filter((s) => !STATUS_CLASSES.includes(s)) ?? [];
  if (unknown.length > 0) throw new UsageError(`unknown --status ${unknown.join(', ')}: expected ${STATUS_CLASSES.join(', ')}`);
  const projectId = await ctx.project();
  const query = {
    ...(options.status?.length ? { status: options.status.join(',') } : {}),
    ...(options.search ? { search: options.search } : {}),
    ...(options.recent !== undefined ? { recent: String(options.recent) } : {}),
    ...(options.follow ? {} : { follow: 'false' as const }),
  };
  const body = await ctx.ok(ctx.api.GET('/v1/projects/{projectId}/apps/{appId}/logs', { params: { path: { projectId, appId }, query }, parseAs: 'stream' }));
  // With --no-follow and nothing recorded the answer is an empty 200 (Content-Length: 0), which the client
  // gives as no body: no entries, not a failure.
  const events = (body ?? new Blob([]).stream()).pipeThrough(new TextDecoderStream()).pipeThrough(new EventSourceParserStream());
  let printed = 0;
  for await (const message of events) {
    if (message.event === 'log') {
      printEntry(JSON.parse(message.data) as LogEntry, options.json === true);
      printed += 1;
    } else if (message.event === 'live' && !options.json) {
      const { replicas } = JSON.parse(message.data) as { replicas: number };
      note(replicas === 0 ? `No runtime replica is running: waiting for none. (${appId})` : `Following ${appId} on ${replicas} runtime replica${replicas === 1 ? '' : 's'}; Ctrl-C to stop.`);
    } else if (message.event === 'dropped') {
      const { count } = JSON.parse(message.data) as { count: number };
      note(
        `${paint('yellow', '!', process.stderr)} ${count} request${count === 1 ? '' : 's'} skipped: the app logged more than the runtime keeps, or this terminal read more slowly than the app logged`,
      );
    }
  }
  if (options.follow) throw new CliError('the log stream ended: the API closed it (restarted?); run `cw logs` again');
  // Replicas record an app's requests only while someone follows its logs (and 5 minutes after), as `wrangler tail`.
  const filtered = options.status?.length || options.search ? ' matching the filters' : '';
  if (printed === 0 && !options.json) note(`No recent requests of ${appId}${filtered}: requests are recorded only while someone follows the app's logs; run \`cw logs ${appId}\` to follow them.`);
}

function printEntry(entry: LogEntry, json: boolean): void {
  if (json) {
    println(JSON.stringify(entry));
    return;
  }
  const status = entry.status === undefined ? paint('red', '---') : paint(entry.status >= 500 ? 'red' : entry.status >= 400 ? 'yellow' : 'green', String(entry.status));
  // What the app and its clients wrote is shown as text, never as terminal control (`terminalSafe`).
  const request = entry.request ? terminalSafe(`${entry.request.method} ${entry.request.url}`, '') : '(no request)';
  const outcome = entry.outcome === 'ok' ? '' : ` ${paint('red', entry.outcome)}`;
  println(`${paint('dim', entry.time)} ${request} ${status}${outcome} ${paint('dim', `[${entry.replica} ${entry.buildId}]`)}`);
  const continued = ' '.repeat(8);
  for (const line of entry.logs) println(`  ${paint(line.level === 'error' ? 'red' : line.level === 'warn' ? 'yellow' : 'dim', line.level.padEnd(5))} ${terminalSafe(line.message, continued)}`);
  for (const e of entry.exceptions) {
    println(`  ${paint('red', 'throw')} ${terminalSafe(`${e.name}: ${e.message}`, continued)}${e.stack ? `\n${continued}${terminalSafe(e.stack, continued)}` : ''}`);
  }
}
