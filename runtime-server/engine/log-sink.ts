import { LOG_LIMITS, type AppLogEntry, type AppLogException, type AppLogLine, type AppLogs } from '../../src/runtime-contract/app-logs.ts';
import { inBuildNames } from './running-app.ts';

const LEVELS = new Set(['debug', 'info', 'log', 'warn', 'error']);
const KEY = /^[a-z0-9-]{1,63}\/[a-z0-9-]{1,63}$/;

/**
 * Takes a batch of log entries from the tail worker (`dispatcher/dispatcher.js`): each is checked and cut to
 * `LOG_LIMITS` before it reaches the buffer; a batch that is not a JSON array is dropped whole. An item
 * `{app, dropped}` counts an app's entries the tail worker did not send (past its share of a batch), which the
 * app's followers are told of (`AppLogs.dropped`).
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
    if (isObject(raw) && 'dropped' in raw) {
      if (typeof raw.app === 'string' && KEY.test(raw.app) && typeof raw.dropped === 'number' && Number.isSafeInteger(raw.dropped) && raw.dropped > 0) logs.dropped(raw.app, raw.dropped);
      continue;
    }
    const parsed = parseEntry(raw);
    if (parsed) logs.add(parsed.key, parsed.entry);
  }
}

type Raw = Record<string, unknown>;

/** A request id as logs keep it: printable ASCII without spaces (the entry point's are UUIDs; a trusted ingress' may differ). */
const REQUEST_ID = /^[\x21-\x7e]{1,128}$/;

const isObject = (value: unknown): value is Raw => typeof value === 'object' && value !== null && !Array.isArray(value);
/**
 * A string of the batch cut to `max` characters, as a copy: V8 keeps a cut (a sliced string) pointing at the
 * whole original, so a 250 KB line cut to 8 KB would keep its 250 KB for as long as the entry is kept.
 */
const str = (value: unknown, max: number): string => {
  const text = typeof value === 'string' ? value : '';
  return text.length <= max ? text : Buffer.from(text.slice(0, max), 'utf8').toString('utf8');
};
const time = (value: unknown): string => new Date(typeof value === 'number' && Number.isFinite(value) && value > 0 ? value : Date.now()).toISOString();

function parseEntry(raw: unknown): { key: string; entry: AppLogEntry } | undefined {
  if (!isObject(raw) || typeof raw.app !== 'string' || !KEY.test(raw.app)) return undefined;
  const request = isObject(raw.request) ? { method: str(raw.request.method, 16), url: str(raw.request.url, LOG_LIMITS.urlChars) } : undefined;
  const requestId = str(raw.requestId, 128);
  const status = typeof raw.status === 'number' && Number.isInteger(raw.status) ? raw.status : undefined;
  // One budget of characters for the entry's exceptions (first: they matter most) and lines together: from the
  // first that does not fit, the rest are dropped and counted.
  let left: number = LOG_LIMITS.entryChars;
  let dropped = 0;
  // What the tail worker cut already (it cuts as this does, before it queues an entry).
  const cutBefore = typeof raw.cut === 'number' && Number.isSafeInteger(raw.cut) && raw.cut > 0 ? raw.cut : 0;
  const fits = (chars: number): boolean => {
    if (dropped > 0 || chars > left) {
      dropped += 1;
      return false;
    }
    left -= chars;
    return true;
  };
  const exceptions: AppLogException[] = (Array.isArray(raw.exceptions) ? raw.exceptions : []).slice(0, LOG_LIMITS.linesPerEntry).flatMap((e: unknown) => {
    if (!isObject(e)) return [];
    const stack = inBuildNames(str(e.stack, LOG_LIMITS.stackChars));
    const exception = { time: time(e.time), name: str(e.name, 256), message: inBuildNames(str(e.message, LOG_LIMITS.messageChars)), ...(stack ? { stack } : {}) };
    return fits(exception.name.length + exception.message.length + stack.length) ? [exception] : [];
  });
  const logs: AppLogLine[] = (Array.isArray(raw.logs) ? raw.logs : []).slice(0, LOG_LIMITS.linesPerEntry).flatMap((line: unknown) => {
    if (!isObject(line)) return [];
    const level = typeof line.level === 'string' && LEVELS.has(line.level) ? (line.level as AppLogLine['level']) : 'log';
    const message = inBuildNames(str(line.message, LOG_LIMITS.messageChars));
    return fits(message.length) ? [{ time: time(line.time), level, message }] : [];
  });
  if (dropped + cutBefore > 0) {
    logs.push({ time: time(raw.time), level: 'warn', message: `(cw: ${dropped + cutBefore} more lines or exceptions not kept: an entry keeps ${LOG_LIMITS.entryChars} characters)` });
  }
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
