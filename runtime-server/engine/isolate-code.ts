// Which isolate of a workerd a code address belongs to, and which apps' modules that isolate runs, read from what V8
// writes itself. The perf map (`perf-<pid>.map`) names each piece of code V8 compiled, but the name is the
// function's, which a tenant chooses, line breaks included: one name can forge whole lines claiming any address for
// any script. So a line of the map counts only where V8's event log vouches for it: one log per isolate
// (`isolate-<isolate>-<pid>-v8.log`, numbers only) lists the memory chunks that isolate was given, and a line counts
// for the isolate whose chunk its code starts in. A forged line would have to guess an address in a chunk (they are
// placed at random), and could then only name the apps whose fingerprint its author knows: its own (`worker-code.ts`
// keys fingerprints with a secret of the process). An isolate's apps are read off the top-level code of its modules
// (`Script:` lines), named after the module, which the runtime names (`cw-<fingerprint>/…`).
import { open, readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';

/** The bucket of the address index: V8's regular page (`new,MemoryChunk,…,262144`). */
const BUCKET = 262_144;
/** Compiled code larger than this is no function's (a line claiming it is forged): not counted. */
const MAX_CODE_BYTES = 16 * 1024 * 1024;
/**
 * What is read of the perf map at a time (it is read as a stream: it can outgrow a string). Each block is read
 * asynchronously, so the runtime's event loop serves other shards between blocks (a map of 2,000 isolates is some
 * 200 MiB, a second's reading).
 */
const READ_BLOCK = 1024 * 1024;

/** Address ranges of isolates, indexed by the page buckets they cover, so a lookup is a map read whatever their sizes. */
class Spans {
  readonly #buckets = new Map<number, Array<{ start: number; end: number; isolate: number }>>();

  add(start: number, end: number, isolate: number): void {
    for (let bucket = Math.floor(start / BUCKET); bucket * BUCKET < end; bucket++) {
      const spans = this.#buckets.get(bucket);
      if (spans) spans.push({ start, end, isolate });
      else this.#buckets.set(bucket, [{ start, end, isolate }]);
    }
  }

  /** The isolates of the ranges holding `address`. */
  isolatesAt(address: number): number[] {
    const found: number[] = [];
    for (const span of this.#buckets.get(Math.floor(address / BUCKET)) ?? []) {
      if (span.start <= address && address < span.end && !found.includes(span.isolate)) found.push(span.isolate);
    }
    return found;
  }
}

/** A workerd's isolates, their chunks and code, and the fingerprints of the apps whose modules each runs. */
export interface IsolateCode {
  /** Isolates given the memory chunk holding `address` (a program counter in compiled code). */
  chunkIsolates(address: number): number[];
  /** Isolates whose compiled code, as a vouched line of the perf map, holds `address` (a return address). */
  codeIsolates(address: number): number[];
  /** The fingerprints of the apps whose modules `isolates` run. */
  apps(isolates: readonly number[]): string[];
  /** The apps whose modules the isolate at address `isolate` runs (hex, as V8 names its log `isolate-0x<address>-<pid>-v8.log`); none when it has no log. */
  appsOfIsolate(isolate: string): string[];
}

const CHUNK = /^new,MemoryChunk,0x([0-9a-f]+),(\d+)$/gm;
/** A perf map line of compiled JavaScript: `<start hex> <size hex> JS:<name> <script>:<line>:<column>`, or a module's top level (`Script:`). */
const CODE = /^([0-9a-f]{1,13}) ([0-9a-f]{1,8}) (JS|Script):(.*)$/;

/**
 * Reads the isolates of workerd `pid` from `dir` (its working directory, where V8 writes an event log per isolate,
 * and its perf map at `perfMap`). `appOf` reads an app's fingerprint off a module's name.
 */
export async function readIsolateCode(dir: string, pid: number, perfMap: string, appOf: (script: string) => string | undefined): Promise<IsolateCode> {
  const suffix = `-${pid}-v8.log`;
  const chunks = new Spans();
  const named = new Map<string, number>();
  const logs = (await readdir(dir)).filter((name) => name.startsWith('isolate-') && name.endsWith(suffix));
  for (const [isolate, name] of logs.entries()) {
    named.set(name.slice('isolate-'.length, -suffix.length), isolate);
    for (const [, start, size] of (await readFile(join(dir, name), 'latin1')).matchAll(CHUNK)) {
      const from = Number.parseInt(start!, 16);
      chunks.add(from, from + Number(size), isolate);
    }
  }
  const code = new Spans();
  const apps = new Map<number, Set<string>>();
  for await (const block of lineBlocks(perfMap)) {
    for (const line of block) {
      const [, start, size, kind, name] = CODE.exec(line) ?? [];
      if (start === undefined || size === undefined) continue;
      const from = Number.parseInt(start, 16);
      const bytes = Number.parseInt(size, 16);
      const isolates = chunks.isolatesAt(from);
      if (isolates.length === 0 || bytes > MAX_CODE_BYTES) continue;
      for (const isolate of isolates) code.add(from, from + bytes, isolate);
      // A module's top level names the isolate's app only where one isolate holds its chunk: V8 does not say when it
      // frees a chunk, and a page freed by one isolate and given to another would lend the first one's apps.
      const app = kind === 'Script' && isolates.length === 1 ? appOf(name!) : undefined;
      if (app !== undefined) apps.set(isolates[0]!, (apps.get(isolates[0]!) ?? new Set()).add(app));
    }
  }
  return {
    chunkIsolates: (address) => chunks.isolatesAt(address),
    codeIsolates: (address) => code.isolatesAt(address),
    apps: (isolates) => [...new Set(isolates.flatMap((isolate) => [...(apps.get(isolate) ?? [])]))],
    appsOfIsolate: (isolate) => {
      const index = named.get(isolate);
      return index === undefined ? [] : [...(apps.get(index) ?? [])];
    },
  };
}

/** The lines of the file at `path`, a block's worth at a time. */
async function* lineBlocks(path: string): AsyncGenerator<string[]> {
  const file = await open(path, 'r');
  const buffer = Buffer.alloc(READ_BLOCK);
  let rest = '';
  try {
    for (let got = (await file.read(buffer, 0, READ_BLOCK)).bytesRead; got > 0; got = (await file.read(buffer, 0, READ_BLOCK)).bytesRead) {
      const text = rest + buffer.toString('latin1', 0, got);
      const last = text.lastIndexOf('\n');
      yield text.slice(0, last + 1).split('\n');
      // A line longer than any V8 writes (names are cut at 4 KB) is nobody's code: not kept whole.
      rest = text.length - last > READ_BLOCK ? '' : text.slice(last + 1);
    }
    if (rest) yield [rest];
  } finally {
    await file.close();
  }
}
