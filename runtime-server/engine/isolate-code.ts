// Which isolate of a workerd a code address belongs to, and which apps' modules that isolate runs, read from what V8
// writes itself. The perf map (`perf-<pid>.map`) names each piece of code V8 compiled, but the name is the
// function's, which a tenant chooses, line breaks included: one name can forge whole lines claiming any address for
// any script. So a line of the map counts only where V8's event log vouches for it: one log per isolate
// (`isolate-<isolate>-<pid>-v8.log`, numbers only) lists the memory chunks that isolate was given, and a line counts
// for the isolate whose chunk its code starts in. A forged line would have to guess an address in a chunk (they are
// placed at random), and could then only name the apps whose fingerprint its author knows: its own (`worker-code.ts`
// keys fingerprints with a secret of the process). An isolate's apps are read off the top-level code of its modules
// (`Script:` lines), named after the module, which the runtime names (`cw-<fingerprint>/…`).
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/** An address range of one isolate: a memory chunk V8 gave it, or a piece of its compiled code. */
interface Span {
  readonly start: number;
  readonly end: number;
  readonly isolate: number;
}

/** Spans sorted by start, asked for every span holding an address (chunks of pages freed and reused may overlap). */
class Spans {
  readonly #spans: Span[];
  readonly #longest: number;

  constructor(spans: Span[]) {
    this.#spans = spans.sort((a, b) => a.start - b.start);
    this.#longest = spans.reduce((longest, span) => Math.max(longest, span.end - span.start), 0);
  }

  /** The isolates of the spans holding `address`. */
  isolatesAt(address: number): number[] {
    let low = 0;
    let high = this.#spans.length - 1;
    while (low <= high) {
      const middle = (low + high) >> 1;
      if (this.#spans[middle]!.start <= address) low = middle + 1;
      else high = middle - 1;
    }
    const found = new Set<number>();
    for (let i = high; i >= 0 && address - this.#spans[i]!.start < this.#longest; i--) {
      if (address < this.#spans[i]!.end) found.add(this.#spans[i]!.isolate);
    }
    return [...found];
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
}

const CHUNK = /^new,MemoryChunk,0x([0-9a-f]+),(\d+)$/gm;
/** A perf map line of compiled JavaScript: `<start hex> <size hex> JS:<name> <script>:<line>:<column>`, or a module's top level (`Script:`). */
const CODE = /^([0-9a-f]{1,13}) ([0-9a-f]{1,8}) (JS|Script):(.*)$/gm;

/**
 * Reads the isolates of workerd `pid` from `dir` (its working directory, where V8 writes an event log per isolate,
 * and its perf map). `appOf` reads an app's fingerprint off a module's name.
 */
export function readIsolateCode(dir: string, pid: number, perfMap: string, appOf: (script: string) => string | undefined): IsolateCode {
  const suffix = `-${pid}-v8.log`;
  const chunkSpans: Span[] = [];
  readdirSync(dir)
    .filter((name) => name.startsWith('isolate-') && name.endsWith(suffix))
    .forEach((name, isolate) => {
      for (const [, start, size] of readFileSync(join(dir, name), 'latin1').matchAll(CHUNK)) {
        const from = Number.parseInt(start!, 16);
        chunkSpans.push({ start: from, end: from + Number(size), isolate });
      }
    });
  const chunks = new Spans(chunkSpans);
  const codeSpans: Span[] = [];
  const apps = new Map<number, Set<string>>();
  for (const [, start, size, kind, name] of perfMap.matchAll(CODE)) {
    const from = Number.parseInt(start!, 16);
    const isolates = chunks.isolatesAt(from);
    for (const isolate of isolates) {
      codeSpans.push({ start: from, end: from + Number.parseInt(size!, 16), isolate });
      const app = kind === 'Script' ? appOf(name!) : undefined;
      if (app !== undefined) apps.set(isolate, (apps.get(isolate) ?? new Set()).add(app));
    }
  }
  const code = new Spans(codeSpans);
  return {
    chunkIsolates: (address) => chunks.isolatesAt(address),
    codeIsolates: (address) => code.isolatesAt(address),
    apps: (isolates) => [...new Set(isolates.flatMap((isolate) => [...(apps.get(isolate) ?? [])]))],
  };
}
