import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { IsolateMemory, memoryCulprit, type IsolateHolding } from './isolate-memory.ts';

const dir = mkdtempSync(join(tmpdir(), 'cw-isolate-memory-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
// Two isolates of workerd 4242, as V8 names their event logs.
for (const isolate of ['0x1000', '0x2000']) writeFileSync(join(dir, `isolate-${isolate}-4242-v8.log`), '');

/** A collection's line as V8 prints it with `--trace-gc-nvp` (shortened: the fields read, among others). */
function traced(isolate: string, bytes: number, { pid = 4242, reason = 'external memory pressure' } = {}): string {
  return `[${pid}:${isolate}:0]     1546 ms: GC: {"pause":0.4,"gc":"s","reason":"${reason}","start_global_consumed_size":1,"end_global_consumed_size":${bytes},"new_space_capacity":1048576}`;
}

describe('IsolateMemory', () => {
  it('keeps what each isolate held after its last collection, and which collected last as a last resort', () => {
    const memory = new IsolateMemory(4242, dir);
    expect(memory.holdings().size).toBe(0);
    expect(memory.take(traced('0x1000', 900))).toBe(true);
    expect(memory.take(traced('0x2000', 500, { reason: 'last resort' }))).toBe(true);
    expect([...memory.holdings()]).toEqual([
      ['0x1000', 900],
      ['0x2000', 500],
    ]);
    expect(memory.lastResort()).toBe('0x2000');
    // The last collection counts, not the most an isolate ever held; an ordinary collection names no last resort.
    memory.take(traced('0x1000', 100));
    expect(memory.holdings().get('0x1000')).toBe(100);
    expect(memory.lastResort()).toBe('0x2000');
    memory.take(traced('0x1000', 100, { reason: 'last resort' }));
    expect(memory.lastResort()).toBe('0x1000');
  });

  it("takes V8's other lines about its isolates out of the log, and leaves workerd's and apps' lines to it", () => {
    const memory = new IsolateMemory(4242, dir);
    expect(memory.take('[4242:0x1000:0]     1635 ms: Memory pool: Removed pages: 0, removed large pages: 0')).toBe(true);
    expect(memory.take('workerd/server/server.c++:1: info: console warning')).toBe(false);
    expect(memory.take('[4242:0x1000]     1986 ms: Scavenge 0.5 (1.5) -> 0.4 (1.5) MB')).toBe(true);
    expect(memory.holdings().get('0x1000')).toBe(0);
  });

  it("counts no line an app could print for an isolate that does not exist or another process's, and leaves it to the log", () => {
    // An app's console shares workerd's output, but the address of a real isolate is not an app's to know.
    const memory = new IsolateMemory(4242, dir);
    memory.take(traced('0x1000', 300));
    expect(memory.take(traced('0x3000', 9e12, { reason: 'last resort' }))).toBe(false);
    expect(memory.take(traced('0x2000', 9e12, { pid: 4243, reason: 'last resort' }))).toBe(false);
    expect([...memory.holdings()]).toEqual([['0x1000', 300]]);
    expect(memory.lastResort()).toBeUndefined();
  });
});

describe('memoryCulprit', () => {
  const MiB = 1024 * 1024;
  const projectOf = (fingerprint: string) => fingerprint.split('-')[0];
  const holding = (mib: number, ...fingerprints: string[]): IsolateHolding => ({ bytes: mib * MiB, fingerprints });
  const dispatcher = holding(40);

  it("names the code of the project holding most of the memory, summed over its apps' isolates", () => {
    expect(memoryCulprit([dispatcher, holding(1500, 'hog-a'), holding(30, 'victim-a')], 2048 * MiB, 2048 * MiB, projectOf)).toEqual(['hog-a']);
    // Three apps at a third of the bound each: one project's.
    const swarm = [holding(600, 'swarm-a'), holding(600, 'swarm-b'), holding(600, 'swarm-c')];
    expect(memoryCulprit([dispatcher, ...swarm, holding(30, 'victim-a')], 2048 * MiB, 2048 * MiB, projectOf)).toEqual(['swarm-a', 'swarm-b', 'swarm-c']);
    // Many small neighbours holding half between them do not hide it.
    const neighbours = Array.from({ length: 400 }, (_, i) => holding(2.5, `n${i}-a`));
    expect(memoryCulprit([dispatcher, ...neighbours, holding(900, 'hog-a')], 2048 * MiB, 2048 * MiB, projectOf)).toEqual(['hog-a']);
  });

  it('names every project holding a quarter of the bound: two of one tenant sharing the growth, or a decoy beside it', () => {
    expect(memoryCulprit([dispatcher, holding(900, 'one-a'), holding(800, 'two-a'), holding(30, 'victim-a')], 2048 * MiB, 2048 * MiB, projectOf)).toEqual(['one-a', 'two-a']);
    expect(memoryCulprit([dispatcher, holding(1300, 'grow-a'), holding(800, 'decoy-a'), holding(30, 'victim-a')], 2100 * MiB, 2048 * MiB, projectOf)).toEqual(['grow-a', 'decoy-a']);
  });

  it('names the largest holders that hold half of it between them when the growth is spread over many projects, not the small neighbours', () => {
    const five = ['p1', 'p2', 'p3', 'p4', 'p5'].map((project) => holding(380, `${project}-a`));
    const neighbours = Array.from({ length: 20 }, (_, i) => holding(4, `n${i}-a`));
    expect(memoryCulprit([dispatcher, ...five, ...neighbours, holding(30, 'victim-a')], 2048 * MiB, 2048 * MiB, projectOf)?.sort()).toEqual(['p1-a', 'p2-a', 'p3-a']);
    // Many just under a thirty-second hold most of it: the two honest apps above it are not named in their place.
    const underFloor = Array.from({ length: 16 }, (_, i) => holding(47, `u${i}-a`));
    expect(memoryCulprit([dispatcher, holding(100, 'innocent-a'), holding(60, 'other-a'), ...underFloor], 1600 * MiB, 1536 * MiB, projectOf)).toBeUndefined();
    // Each under a thirty-second of the bound: nobody is named for it.
    const many = Array.from({ length: 40 }, (_, i) => holding(50, `m${i}-a`));
    expect(memoryCulprit([dispatcher, ...many], 2048 * MiB, 2048 * MiB, projectOf)).toBeUndefined();
  });

  it('says nothing when V8 does not account for the memory, or no project holds a thirty-second of the bound', () => {
    // Memory V8 does not count (response bodies workerd holds): the account explains under half of it.
    expect(memoryCulprit([dispatcher, holding(600, 'big-a'), holding(30, 'victim-a')], 2048 * MiB, 2048 * MiB, projectOf)).toBeUndefined();
    // Nobody holds a thirty-second of the bound.
    expect(memoryCulprit([dispatcher, holding(60, 'one-a'), holding(50, 'two-a')], 150 * MiB, 2048 * MiB, projectOf)).toBeUndefined();
    // Code of no known project: nobody's.
    expect(memoryCulprit([dispatcher, holding(1500, 'gone')], 2048 * MiB, 2048 * MiB, () => undefined)).toBeUndefined();
  });
});
