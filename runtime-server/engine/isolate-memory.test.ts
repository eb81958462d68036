import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { IsolateMemory } from './isolate-memory.ts';

const dir = mkdtempSync(join(tmpdir(), 'cw-isolate-memory-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
// Two isolates of workerd 4242, as V8 names their event logs.
for (const isolate of ['0x1000', '0x2000']) writeFileSync(join(dir, `isolate-${isolate}-4242-v8.log`), '');

/** A collection's line as V8 prints it with `--trace-gc-nvp` (shortened: the fields read, among others). */
function traced(isolate: string, bytes: number, pid = 4242): string {
  return `[${pid}:${isolate}:0]     1546 ms: GC: {"pause":0.4,"gc":"s","reason":"external memory pressure","start_global_consumed_size":1,"end_global_consumed_size":${bytes},"new_space_capacity":1048576}`;
}

describe('IsolateMemory', () => {
  it('keeps what each isolate held after its last collection, and which collected last', () => {
    const memory = new IsolateMemory(4242, dir);
    expect(memory.largest()).toBeUndefined();
    expect(memory.take(traced('0x1000', 900))).toBe(true);
    expect(memory.take(traced('0x2000', 500))).toBe(true);
    expect(memory.largest()).toEqual({ isolate: '0x1000', bytes: 900 });
    expect(memory.lastCollected()).toBe('0x2000');
    // The last collection counts, not the most an isolate ever held.
    memory.take(traced('0x1000', 100));
    expect(memory.largest()).toEqual({ isolate: '0x2000', bytes: 500 });
    expect(memory.lastCollected()).toBe('0x1000');
  });

  it("leaves workerd's other lines to the log", () => {
    const memory = new IsolateMemory(4242, dir);
    expect(memory.take('workerd/server/server.c++:1: info: console warning')).toBe(false);
    expect(memory.take('[4242:0x1000]     1986 ms: Scavenge 0.5 (1.5) -> 0.4 (1.5) MB')).toBe(false);
    expect(memory.largest()).toBeUndefined();
  });

  it("counts no line an app could print for an isolate that does not exist or another process's", () => {
    // An app's console shares workerd's output, but the address of a real isolate is not an app's to know.
    const memory = new IsolateMemory(4242, dir);
    memory.take(traced('0x1000', 300));
    expect(memory.take(traced('0x3000', 9e12))).toBe(true);
    expect(memory.take(traced('0x2000', 9e12, 4243))).toBe(true);
    expect(memory.take('[4242:0x2000:0]     1 ms: GC: {"pause":0.4}')).toBe(true);
    expect(memory.largest()).toEqual({ isolate: '0x1000', bytes: 300 });
    expect(memory.lastCollected()).toBe('0x1000');
  });
});
