import type { FastifyBaseLogger } from 'fastify';
import pino from 'pino';

/** What one access line records; see plugins/access-log.ts. */
export interface AccessRecord {
  readonly requestId: string;
  readonly method: string;
  readonly path: string;
  readonly status: number;
  readonly ms: number;
}

/** Writes an access line; `log.info(fieldsOf(record), 'request')` is the reference. */
export type AccessLineWriter = (record: AccessRecord) => void;

/** Characters a JSON string cannot hold as they are. */
// eslint-disable-next-line no-control-regex
const NEEDS_ESCAPE = /["\\\u0000-\u001f]/;
const INFO = 30;

/** The fields of the line, in the order they are printed; the request id under the label every line uses. */
export function fieldsOf(record: AccessRecord, requestIdLabel: string): Record<string, string | number> {
  return { [requestIdLabel]: record.requestId, method: record.method, path: record.path, status: record.status, ms: record.ms };
}

/** A pino destination, told about each line when it carries pino's metadata symbol. */
interface MetadataStream {
  write(line: string): void;
  lastLevel?: number;
  lastMsg?: string;
  lastObj?: object;
  lastTime?: string;
  lastLogger?: object;
  [key: symbol]: unknown;
}

/** pino's per-logger state that the fast writer reuses, so level, time and bindings print as pino prints them. */
interface PinoState {
  levelVal: number;
  [key: symbol]: unknown;
}

/**
 * A writer that prints the access line without pino's generic serializer: level, time, bindings and line end
 * come from the logger's own state, only the five fields are formatted here. pino walks every key of every
 * record through its serializer and stringifier tables; for the one line written on every request that was
 * the largest cost left in a request answered from memory (measured: bench/README.md).
 *
 * It is used only if it prints, byte for byte, what `log.info(fields, 'request')` prints for a probe record
 * with quotes, a backslash and a control character in it; otherwise (a logger that is not pino, a message key,
 * formatters, serializers or redaction touching these fields) `undefined`, and the caller logs through pino.
 */
export function fastAccessLineWriter(log: FastifyBaseLogger, requestIdLabel: string): AccessLineWriter | undefined {
  const { lsCacheSym, timeSym, timeSliceIndexSym, chindingsSym, endSym, streamSym, asJsonSym, needsMetadataGsym } = pino.symbols;
  const state = log as unknown as PinoState;
  const time = state[timeSym];
  const asJson = state[asJsonSym];
  const stream = state[streamSym] as { write?: unknown } | undefined;
  if (typeof time !== 'function' || typeof asJson !== 'function' || typeof stream?.write !== 'function') return undefined;
  if (typeof state[chindingsSym] !== 'string' || typeof state[endSym] !== 'string') return undefined;
  const start = (state[lsCacheSym] as Record<number, string> | undefined)?.[INFO];
  if (typeof start !== 'string') return undefined;
  const chindings = state[chindingsSym];
  const end = state[endSym];
  // Called on the logger, as pino calls it.
  const timestampNow = (): string => (time as () => string).call(log);
  const format = (record: AccessRecord, timestamp: string): string =>
    `${start}${timestamp}${chindings},"${requestIdLabel}":${jsonString(record.requestId)},"method":${jsonString(record.method)},"path":${jsonString(record.path)},"status":${record.status},"ms":${record.ms},"msg":"request"${end}`;

  const probe: AccessRecord = { requestId: 'probe-1', method: 'GET', path: '/a"b\\c\u0001d/ü', status: 200, ms: 1.5 };
  const timestamp = timestampNow();
  const expected = (asJson as (obj: object, msg: string, level: number, time: string) => string).call(log, fieldsOf(probe, requestIdLabel), 'request', INFO, timestamp);
  if (format(probe, timestamp) !== expected) return undefined;

  const sink = stream as MetadataStream;
  const wantsMetadata = sink[needsMetadataGsym] === true;
  const timeSliceIndex = Number(state[timeSliceIndexSym] ?? 0);
  return (record) => {
    // The level can be changed at run time (`log.level = 'warn'`).
    if (state.levelVal > INFO) return;
    const now = timestampNow();
    // What pino tells a destination that asks (plugins/log-destination.ts decides by the level when to write).
    if (wantsMetadata) {
      sink.lastLevel = INFO;
      sink.lastMsg = 'request';
      sink.lastObj = record;
      sink.lastTime = now.slice(timeSliceIndex);
      sink.lastLogger = log;
    }
    sink.write(format(record, now));
  };
}

/** `JSON.stringify` of a string, without the call for the usual string that needs no escaping. */
function jsonString(value: string): string {
  return NEEDS_ESCAPE.test(value) ? JSON.stringify(value) : `"${value}"`;
}
