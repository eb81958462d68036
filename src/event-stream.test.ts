import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { BoundedEventWriter, sseEvent } from './event-stream.ts';

describe('BoundedEventWriter', () => {
  it('counts events instead of queueing them past 1 MiB unsent, and says how many before the next one', () => {
    const out = new PassThrough({ highWaterMark: 16 });
    const stream = new BoundedEventWriter(out, 60_000);
    const big = 'x'.repeat(1024 * 1024);
    stream.send('log', big);
    expect(stream.full).toBe(true);
    stream.sendOrDrop('log', 'lost 1');
    stream.sendOrDrop('log', 'lost 2');
    const unsent = out.read() as Buffer;
    expect(unsent.toString()).toBe(sseEvent('log', big));
    expect(stream.full).toBe(false);
    stream.sendOrDrop('log', 'kept');
    expect((out.read() as Buffer).toString()).toBe(sseEvent('dropped', { count: 2 }) + sseEvent('log', 'kept'));
    out.destroy();
  });

  it('says at once how many were dropped before they reached it, or adds them to the count of a reader behind', () => {
    const out = new PassThrough({ highWaterMark: 16 });
    const stream = new BoundedEventWriter(out, 60_000);
    stream.countDropped(5);
    expect((out.read() as Buffer).toString()).toBe(sseEvent('dropped', { count: 5 }));
    const big = 'x'.repeat(1024 * 1024);
    stream.send('log', big);
    stream.sendOrDrop('log', 'lost');
    stream.countDropped(3);
    expect((out.read() as Buffer).toString()).toBe(sseEvent('log', big));
    stream.send('log', 'kept');
    expect((out.read() as Buffer).toString()).toBe(sseEvent('dropped', { count: 4 }) + sseEvent('log', 'kept'));
    out.destroy();
  });

  it('paces events a reader must get all of: each waits until the reader took what the stream held', async () => {
    const out = new PassThrough();
    const stream = new BoundedEventWriter(out, 60_000);
    const abort = new AbortController();
    const part = 'y'.repeat(64 * 1024);
    let sent = 0;
    const writing = (async () => {
      for (let i = 0; i < 8; i++) {
        await stream.sendPaced('log', part, abort.signal);
        sent += 1;
      }
    })();
    await new Promise((resolve) => setImmediate(resolve));
    // Nobody reads: one event is in the stream and the writer waits on it.
    expect([sent, out.readableLength]).toEqual([0, sseEvent('log', part).length]);
    let read = '';
    out.on('data', (chunk: Buffer) => (read += chunk.toString()));
    await writing;
    expect(read).toBe(sseEvent('log', part).repeat(8));
    out.destroy();
  });

  it('stops waiting when the reader goes', async () => {
    const out = new PassThrough();
    const stream = new BoundedEventWriter(out, 60_000);
    const abort = new AbortController();
    const waiting = stream.sendPaced('log', 'z'.repeat(64 * 1024), abort.signal);
    abort.abort();
    await expect(waiting).resolves.toBeUndefined();
    out.destroy();
  });
});
