// What V8 writes, as `isolate-code.ts` reads it: lines of the perf map count only inside chunks an isolate's own
// event log lists (the real workerd's files: `engine-running-app.test.ts`).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readIsolateCode, type IsolateCode } from './isolate-code.ts';

const dir = mkdtempSync(join(tmpdir(), 'cw-isolate-code-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const appOf = (script: string) => /cw-([0-9a-f]{24})\//.exec(script)?.[1];
const A = 'a'.repeat(24);
const B = 'b'.repeat(24);

/** The two isolates' event logs of workerd 7 (and one of another process, which is not read). */
function logs(): void {
  writeFileSync(join(dir, 'isolate-0x1000-7-v8.log'), 'v8-version,15,8\nnew,MemoryChunk,0x100000,262144\nnew,MemoryChunk,0x900000,262144\ndelete,MemoryChunk,0x1000\n');
  writeFileSync(join(dir, 'isolate-0x2000-7-v8.log'), 'new,MemoryChunk,0x200000,262144\nnew,MemoryChunk,0x900000,262144\n');
  writeFileSync(join(dir, 'isolate-0x3000-8-v8.log'), 'new,MemoryChunk,0x300000,262144\n');
}

describe('readIsolateCode', () => {
  logs();
  const map = [
    `100000 248 Script:~ cw-${A}/worker.js:1:1`,
    `100400 40 JS:~fetch cw-${A}/worker.js:2:3`,
    `200000 248 Script:~ cw-${B}/index.js:1:1`,
    `200400 40 JS:*render cw-${B}/index.js:9:1`,
    // Forged by a function name: claims an address no isolate was given, for A's script.
    `300000 ffffff Script:~ cw-${A}/worker.js:1:1`,
    `55aa00000000 1000 Builtin:JsonParse`,
    // In the chunk both isolates were given: names neither isolate's app.
    `900000 100 Script:~ cw-${'c'.repeat(24)}/other.js:1:1`,
    // Larger than any function's code: a forged line, though it starts in a chunk.
    `100800 2000000 JS:~huge cw-${A}/worker.js:5:1`,
  ].join('\n');
  let code: IsolateCode;
  beforeAll(async () => {
    writeFileSync(join(dir, 'perf-7.map'), map);
    code = await readIsolateCode(dir, 7, join(dir, 'perf-7.map'), appOf);
  });

  it('finds the isolate of an address in its chunks, and the apps its modules belong to', () => {
    expect(code.chunkIsolates(0x100010)).toEqual([0]);
    expect(code.apps(code.chunkIsolates(0x200010))).toEqual([B]);
    expect(code.apps(code.codeIsolates(0x100410))).toEqual([A]);
  });

  it('counts nothing outside the chunks: a forged line, a builtin, another process', () => {
    expect(code.chunkIsolates(0x300010)).toEqual([]);
    expect(code.codeIsolates(0x300010)).toEqual([]);
    expect(code.codeIsolates(0x55aa00000010)).toEqual([]);
    // In a chunk, but in no compiled code: not a return address.
    expect(code.codeIsolates(0x100900)).toEqual([]);
  });

  it('answers every isolate given a chunk (a page freed and given again), and every app they run', () => {
    expect(code.chunkIsolates(0x900010).sort()).toEqual([0, 1]);
    expect(code.apps(code.chunkIsolates(0x900010)).sort()).toEqual([A, B]);
  });

  it('ignores code larger than a function can be', () => {
    expect(code.codeIsolates(0x100900)).toEqual([]);
    expect(code.codeIsolates(0x1000000)).toEqual([]);
  });

  it('reads a perf map larger than its read blocks, lines split across them included', async () => {
    // Builtins first (V8 writes about 2,000 of them per isolate), so the app's line falls across a block's end.
    const filler = Array.from({ length: 40_000 }, (_, i) => `55aa0000${i.toString(16).padStart(4, '0')} 40 Builtin:Filler${i}`).join('\n');
    writeFileSync(join(dir, 'perf-7.map'), `${filler}\n${map}\n`);
    const big = await readIsolateCode(dir, 7, join(dir, 'perf-7.map'), appOf);
    expect(big.apps(big.codeIsolates(0x100410))).toEqual([A]);
    expect(big.apps([1])).toEqual([B]);
  });
});
