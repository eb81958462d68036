// How much memory each isolate of a workerd holds, as V8 says after each of its garbage collections. A shard's
// resident-memory bound otherwise has only the requests in flight to judge from, and an app growing its memory in
// `ctx.waitUntil` after answering (ArrayBuffers, which the heap bound does not count) lays the stop on whichever
// app was busy then. V8 counts an isolate's ArrayBuffers and the memory its embedder reports beside its heap, and
// collects garbage every 64 MiB or so they grow: so the isolate growing is the one whose last collection says so.
import { existsSync } from 'node:fs';
import { join } from 'node:path';

/** Has V8 write one line (JSON after a prefix naming the process and isolate) after each garbage collection. */
export const GC_TRACE_FLAGS: readonly string[] = ['--trace-gc-nvp'];

/** `[<pid>:0x<isolate>:<n>]  <ms> ms: GC: {…}`, as V8 prints a collection with `--trace-gc-nvp`. */
const GC_LINE = /^\[(\d+):(0x[0-9a-f]+)(?::\d+)?\]\s+[\d.]+ ms: GC: \{/;
/** The isolate's heap and external memory after the collection. */
const GLOBAL_AFTER = /"end_global_consumed_size":(\d+)/;

/** The memory each isolate of one workerd held after its last garbage collection, read off its output. */
export class IsolateMemory {
  readonly #pid: string;
  readonly #dir: string;
  readonly #bytes = new Map<string, number>();
  #last: string | undefined;

  /** For workerd `pid`, whose working directory `dir` holds V8's event log of each of its isolates. */
  constructor(pid: number, dir: string) {
    this.#pid = String(pid);
    this.#dir = dir;
  }

  /**
   * Takes `line` of workerd's output if it is V8's trace of a collection (then it is no log line); true if it was.
   * An app's console writes to the same output, so a line counts only for an isolate that exists: one with an event
   * log (`isolate-code.ts`), whose address an app cannot know. A forged line for another address goes nowhere.
   */
  take(line: string): boolean {
    const traced = GC_LINE.exec(line);
    if (!traced) return false;
    const [, pid, isolate] = traced as unknown as [string, string, string];
    const bytes = GLOBAL_AFTER.exec(line)?.[1];
    if (pid !== this.#pid || bytes === undefined) return true;
    if (!this.#bytes.has(isolate) && !existsSync(join(this.#dir, `isolate-${isolate}-${pid}-v8.log`))) return true;
    this.#bytes.set(isolate, Number(bytes));
    this.#last = isolate;
    return true;
  }

  /**
   * The isolate whose collection was traced last (its address). An isolate that passes its heap bound collects
   * garbage one last time before V8 ends the process, on the thread every isolate of a workerd shares: so after
   * such an end, this is the isolate that passed it. (V8's own account of its last collections, which it prints
   * then, is cut off mid-line when it traces them this way.)
   */
  lastCollected(): string | undefined {
    return this.#last;
  }

  /** The isolate that held the most after its last collection (its address, as V8 names it), if any reported. */
  largest(): { readonly isolate: string; readonly bytes: number } | undefined {
    let largest: { isolate: string; bytes: number } | undefined;
    for (const [isolate, bytes] of this.#bytes) if (!largest || bytes > largest.bytes) largest = { isolate, bytes };
    return largest;
  }
}
