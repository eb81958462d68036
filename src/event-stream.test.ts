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
});
