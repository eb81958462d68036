import { EventEmitter } from 'node:events';
import Fastify from 'fastify';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { bufferedLogDestination, FLUSH_DELAY_MS, withBufferedLogs } from './log-destination.ts';

/** A sink recording each chunk it is handed. */
function recorder(): { chunks: string[]; write(chunk: string): void } {
  const chunks: string[] = [];
  return { chunks, write: (chunk) => void chunks.push(chunk) };
}

/** Lines as pino writes them: one JSON object and a newline each. */
const linesOf = (chunks: string[]) =>
  chunks
    .join('')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as Record<string, unknown>);

afterEach(() => {
  vi.useRealTimers();
});

describe('bufferedLogDestination', () => {
  it('writes info lines together, in order, once the delay has passed', async () => {
    vi.useFakeTimers();
    const sink = recorder();
    const app = Fastify({ logger: { level: 'info', stream: bufferedLogDestination(sink, new EventEmitter()) } });
    for (let i = 0; i < 3; i++) app.log.info({ i }, 'line');
    expect(sink.chunks).toEqual([]);
    await vi.advanceTimersByTimeAsync(FLUSH_DELAY_MS);
    expect(sink.chunks).toHaveLength(1);
    expect(linesOf(sink.chunks).map((line) => line.i)).toEqual([0, 1, 2]);
    await app.close();
  });

  it('writes a warning at once, after the lines before it', async () => {
    vi.useFakeTimers();
    const sink = recorder();
    const app = Fastify({ logger: { level: 'info', stream: bufferedLogDestination(sink, new EventEmitter()) } });
    app.log.info('first');
    app.log.error('broken');
    expect(linesOf(sink.chunks).map((line) => line.msg)).toEqual(['first', 'broken']);
    await app.close();
  });

  it('writes once a chunk is full, without waiting', () => {
    vi.useFakeTimers();
    const sink = recorder();
    const destination = bufferedLogDestination(sink, new EventEmitter());
    const line = `${'x'.repeat(1023)}\n`;
    for (let i = 0; i < 16; i++) destination.write(line);
    expect(sink.chunks).toEqual([line.repeat(16)]);
  });

  it('hands every buffered line over when the process exits', () => {
    const sink = recorder();
    const process = new EventEmitter();
    const destination = bufferedLogDestination(sink, process);
    destination.write('{"msg":"last words"}\n');
    process.emit('exit', 0);
    expect(sink.chunks).toEqual(['{"msg":"last words"}\n']);
  });
});

describe('withBufferedLogs', () => {
  it('gives a logger configuration without a destination the buffered one', () => {
    const options = withBufferedLogs({ logger: { level: 'info' }, bodyLimit: 10 });
    expect(options.bodyLimit).toBe(10);
    expect(options.logger).toMatchObject({ level: 'info', stream: { write: expect.any(Function) } });
  });

  it('leaves a configured stream, no logger and `false` alone', () => {
    const stream = recorder();
    for (const options of [{ logger: { level: 'trace', stream } }, {}, { logger: false }]) expect(withBufferedLogs(options)).toBe(options);
  });
});
