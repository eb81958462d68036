import { LOG_LIMITS, type AppLogEntry, type AppLogException, type AppLogLine, type AppLogs } from '../../src/runtime-contract/app-logs.ts';
import { inBuildNames } from './running-app.ts';

const LEVELS = new Set(['debug', 'info', 'log', 'warn', 'error']);
const KEY = /^[a-z0-9-]{1,63}\/[a-z0-9-]{1,63}$/;

/**
 * Takes a batch of log entries from the tail worker (`dispatcher/dispatcher.js`): each is checked and cut to
 * `LOG_LIMITS` before it reaches the buffer; a batch that is not a JSON array is dropped whole.
 */
export function ingestLogBatch(body: string, logs: AppLogs): void {
  let batch: unknown;
  try {
    batch = JSON.parse(body);
  } catch {
    return;
  }
  if (!Array.isArray(batch)) return;
  for (const raw of batch) {
    const parsed = parseEntry(raw);
    if (parsed) logs.add(parsed.key, parsed.entry);
  }
}

type Raw = Record<string, unknown>;

/** A request id as logs keep it: printable ASCII without spaces (the entry point's are UUIDs; a trusted ingress' may differ). */
const REQUEST_ID = /^[\x21-\x7e]{1,128}$/;

const isObject = (value: unknown): value is Raw => typeof value === 'object' && value !== null && !Array.isArray(value);
const str = (value: unknown, max: number): string => (typeof value === 'string' ? value : '').slice(0, max);
const time = (value: unknown): string => new Date(typeof value === 'number' && Number.isFinite(value) && value > 0 ? value : Date.now()).toISOString();

function parseEntry(raw: unknown): { key: string; entry: AppLogEntry } | undefined {
  if (!isObject(raw) || typeof raw.app !== 'string' || !KEY.test(raw.app)) return undefined;
  const request = isObject(raw.request) ? { method: str(raw.request.method, 16), url: str(raw.request.url, LOG_LIMITS.urlChars) } : undefined;
  const requestId = str(raw.requestId, 128);
  const status = typeof raw.status === 'number' && Number.isInteger(raw.status) ? raw.status : undefined;
  const logs: AppLogLine[] = (Array.isArray(raw.logs) ? raw.logs : []).slice(0, LOG_LIMITS.linesPerEntry).flatMap((line: unknown) => {
    if (!isObject(line)) return [];
    const level = typeof line.level === 'string' && LEVELS.has(line.level) ? (line.level as AppLogLine['level']) : 'log';
    return [{ time: time(line.time), level, message: inBuildNames(str(line.message, LOG_LIMITS.messageChars)) }];
  });
  const exceptions: AppLogException[] = (Array.isArray(raw.exceptions) ? raw.exceptions : []).slice(0, LOG_LIMITS.linesPerEntry).flatMap((e: unknown) => {
    if (!isObject(e)) return [];
    const stack = inBuildNames(str(e.stack, LOG_LIMITS.stackChars));
    return [{ time: time(e.time), name: str(e.name, 256), message: inBuildNames(str(e.message, LOG_LIMITS.messageChars)), ...(stack ? { stack } : {}) }];
  });
  const entry: AppLogEntry = {
    time: time(raw.time),
    buildId: str(raw.buildId, 63),
    outcome: str(raw.outcome, 32) || 'unknown',
    ...(request ? { request } : {}),
    ...(REQUEST_ID.test(requestId) ? { requestId } : {}),
    ...(status !== undefined ? { status } : {}),
    logs,
    exceptions,
  };
  return { key: raw.app, entry };
}
