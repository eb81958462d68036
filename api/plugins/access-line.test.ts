import Fastify, { type FastifyBaseLogger } from 'fastify';
import pino from 'pino';
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { serverLoggerOptions } from '../server.ts';
import { fastAccessLineWriter, fieldsOf, type AccessRecord } from './access-line.ts';
import { withBufferedLogs } from './log-destination.ts';

const LABEL = 'request_id';

function capture(options: pino.LoggerOptions = {}) {
  const lines: string[] = [];
  const stream = new Writable({ write: (chunk, _enc, done) => (lines.push(String(chunk)), done()) });
  // A fixed time, so the line pino prints and the fast one can be compared byte for byte.
  const log = pino({ level: 'info', timestamp: () => ',"time":1700000000000', ...options }, stream) as unknown as FastifyBaseLogger;
  return { log, lines };
}

const records: AccessRecord[] = [
  { requestId: '8f14e45f-ceea-4e7a-b3a3-1c9f2a1d5e77', method: 'GET', path: '/v1/projects', status: 200, ms: 0.4 },
  { requestId: 'a.b:c-1', method: 'DELETE', path: '/v1/projects/p"1\\x', status: 404, ms: 12 },
  { requestId: 'id', method: 'POST', path: `/ctl\u0000\u001f/tab\t/ü/😀/${'long/'.repeat(40)}`, status: 500, ms: 1234.5 },
];

describe('fast access line', () => {
  it.each(records)('prints exactly what pino prints for %j', async (record) => {
    const fast = capture();
    const reference = capture();
    fastAccessLineWriter(fast.log, LABEL)?.(record);
    reference.log.info(fieldsOf(record, LABEL), 'request');
    await new Promise((resolve) => setImmediate(resolve));
    expect(fast.lines).toHaveLength(1);
    expect(fast.lines).toEqual(reference.lines);
    expect(JSON.parse(fast.lines[0] ?? '')).toMatchObject({ level: 30, [LABEL]: record.requestId, path: record.path, status: record.status, msg: 'request' });
  });

  it('follows level changes made at run time', async () => {
    const { log, lines } = capture();
    const write = fastAccessLineWriter(log, LABEL);
    log.level = 'warn';
    write?.(records[0] as AccessRecord);
    log.level = 'debug';
    write?.(records[0] as AccessRecord);
    await new Promise((resolve) => setImmediate(resolve));
    expect(lines).toHaveLength(1);
  });

  it('steps aside for a logger it cannot match, so the line goes through pino', () => {
    expect(fastAccessLineWriter(capture({ messageKey: 'message' }).log, LABEL)).toBeUndefined();
    expect(fastAccessLineWriter(capture({ formatters: { log: (object) => ({ ...object, extra: 1 }) } }).log, LABEL)).toBeUndefined();
    expect(fastAccessLineWriter(capture({ redact: ['path'] }).log, LABEL)).toBeUndefined();
    expect(fastAccessLineWriter(Fastify({ logger: false }).log, LABEL)).toBeUndefined();
  });

  it("is used with cw-api's own logger, and tells its buffered destination the line's level", () => {
    const app = Fastify(withBufferedLogs({ logger: serverLoggerOptions('info') }));
    const destination = (app.log as unknown as Record<symbol, { lastLevel?: number }>)[pino.symbols.streamSym];
    const write = fastAccessLineWriter(app.log, LABEL);
    expect(write).toBeDefined();
    app.log.error('an error first');
    expect(destination?.lastLevel).toBe(50);
    write?.(records[0] as AccessRecord);
    expect(destination?.lastLevel).toBe(30);
  });
});
