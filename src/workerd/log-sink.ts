import { createServer, type Server } from 'node:http';
import { rm } from 'node:fs/promises';
import { LOG_LIMITS, type AppLogEntry, type AppLogException, type AppLogLine, type AppLogs } from './app-logs.ts';

const MAX_BATCH_BYTES = 16 * 1024 * 1024;
const LEVELS = new Set(['debug', 'info', 'log', 'warn', 'error']);
const KEY = /^[a-z0-9-]{1,63}\/[a-z0-9-]{1,63}$/;

/**
 * Where the tail worker (`tail-worker.ts`) delivers batches of log entries: Node's HTTP server on a Unix
 * socket in the runtime's private run directory, so only workerd reaches it. Entries are checked and cut
 * to `LOG_LIMITS` before they reach the buffer; a malformed batch is dropped, never half taken.
 */
export async function startLogSink(socketPath: string, logs: AppLogs): Promise<Server> {
  await rm(socketPath, { force: true });
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BATCH_BYTES) req.destroy();
      else chunks.push(chunk);
    });
    req.on('end', () => {
      res.writeHead(204).end();
      let batch: unknown;
      try {
        batch = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      } catch {
        return;
      }
      if (!Array.isArray(batch)) return;
      for (const raw of batch) {
        const parsed = parseEntry(raw);
        if (parsed) logs.add(parsed.key, parsed.entry);
      }
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(socketPath, () => resolve());
  });
  return server;
}

type Raw = Record<string, unknown>;

const isObject = (value: unknown): value is Raw => typeof value === 'object' && value !== null && !Array.isArray(value);
const str = (value: unknown, max: number): string => (typeof value === 'string' ? value : '').slice(0, max);
const time = (value: unknown): string => new Date(typeof value === 'number' && Number.isFinite(value) && value > 0 ? value : Date.now()).toISOString();

function parseEntry(raw: unknown): { key: string; entry: AppLogEntry } | undefined {
  if (!isObject(raw) || typeof raw.app !== 'string' || !KEY.test(raw.app)) return undefined;
  const request = isObject(raw.request) ? { method: str(raw.request.method, 16), url: str(raw.request.url, LOG_LIMITS.urlChars) } : undefined;
  const status = typeof raw.status === 'number' && Number.isInteger(raw.status) ? raw.status : undefined;
  const logs: AppLogLine[] = (Array.isArray(raw.logs) ? raw.logs : []).slice(0, LOG_LIMITS.linesPerEntry).flatMap((line: unknown) => {
    if (!isObject(line)) return [];
    const level = typeof line.level === 'string' && LEVELS.has(line.level) ? (line.level as AppLogLine['level']) : 'log';
    return [{ time: time(line.time), level, message: str(line.message, LOG_LIMITS.messageChars) }];
  });
  const exceptions: AppLogException[] = (Array.isArray(raw.exceptions) ? raw.exceptions : []).slice(0, LOG_LIMITS.linesPerEntry).flatMap((e: unknown) => {
    if (!isObject(e)) return [];
    const stack = str(e.stack, LOG_LIMITS.stackChars);
    return [{ time: time(e.time), name: str(e.name, 256), message: str(e.message, LOG_LIMITS.messageChars), ...(stack ? { stack } : {}) }];
  });
  const entry: AppLogEntry = {
    time: time(raw.time),
    buildId: str(raw.buildId, 63),
    outcome: str(raw.outcome, 32) || 'unknown',
    ...(request ? { request } : {}),
    ...(status !== undefined ? { status } : {}),
    logs,
    exceptions,
  };
  return { key: raw.app, entry };
}
