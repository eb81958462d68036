// How much memory each isolate of a workerd holds, as V8 says after each of its garbage collections. A shard's
// resident-memory bound otherwise has only the requests in flight to judge from, and an app growing its memory in
// `ctx.waitUntil` after answering (ArrayBuffers, which the heap bound does not count) lays the stop on whichever
// app was busy then. V8 counts an isolate's ArrayBuffers and the memory its embedder reports beside its heap, and
// collects garbage as they grow in steps: so the isolate growing is, most often, one whose last collection says so.
import { existsSync } from 'node:fs';
import { join } from 'node:path';

/** Has V8 write one line (JSON after a prefix naming the process and isolate) after each garbage collection. */
export const GC_TRACE_FLAGS: readonly string[] = ['--trace-gc-nvp'];

/** `[<pid>:0x<isolate>:<n>]`: how V8 begins each line it prints about an isolate. */
const ISOLATE_LINE = /^\[(\d+):(0x[0-9a-f]+)(?::\d+)?\]/;
/** `… <ms> ms: GC: {…}`, a collection's line with `--trace-gc-nvp`, after that prefix. */
const GC_LINE = /^\s+[\d.]+ ms: GC: \{/;
/** The isolate's heap and external memory after the collection. */
const GLOBAL_AFTER = /"end_global_consumed_size":(\d+)/;
/** V8's last collections before it gives up on a heap past its bound and ends the process. */
const LAST_RESORT = '"reason":"last resort"';

/** What one isolate held after its last collection, and the apps whose code it runs (their fingerprints). */
export interface IsolateHolding {
  readonly bytes: number;
  readonly fingerprints: readonly string[];
}

/** The memory each isolate of one workerd held after its last garbage collection, read off its output. */
export class IsolateMemory {
  readonly #pid: string;
  readonly #dir: string;
  readonly #bytes = new Map<string, number>();
  #lastResort: string | undefined;

  /** For workerd `pid`, whose working directory `dir` holds V8's event log of each of its isolates. */
  constructor(pid: number, dir: string) {
    this.#pid = String(pid);
    this.#dir = dir;
  }

  /**
   * Takes `line` of workerd's output if V8 wrote it about one of this workerd's isolates (then it is no log line):
   * true if it did. An app's console writes to the same output, so a line counts only for an isolate that exists,
   * one with an event log (`isolate-code.ts`), whose address an app cannot know: any other line is left to the log.
   */
  take(line: string): boolean {
    const prefix = ISOLATE_LINE.exec(line);
    if (!prefix) return false;
    const [whole, pid, isolate] = prefix as unknown as [string, string, string];
    if (pid !== this.#pid) return false;
    if (!this.#bytes.has(isolate)) {
      if (!existsSync(join(this.#dir, `isolate-${isolate}-${pid}-v8.log`))) return false;
      this.#bytes.set(isolate, 0);
    }
    const rest = line.slice(whole.length);
    if (!GC_LINE.test(rest)) return true; // V8's other notes about the isolate (its memory pool): not the app's
    const bytes = GLOBAL_AFTER.exec(rest)?.[1];
    if (bytes !== undefined) this.#bytes.set(isolate, Number(bytes));
    if (rest.includes(LAST_RESORT)) this.#lastResort = isolate;
    return true;
  }

  /** Each isolate (its address, as V8 names it) and what it held after its last collection. */
  holdings(): ReadonlyMap<string, number> {
    return this.#bytes;
  }

  /**
   * The isolate V8 collected last as a last resort (its address): one whose heap passed its bound, collected again
   * and again before V8 ends the process, on the thread every isolate of a workerd shares. (V8's own account of its
   * last collections, which it prints then, is cut off mid-line when it traces them this way.)
   */
  lastResort(): string | undefined {
    return this.#lastResort;
  }
}

/**
 * The fingerprints of the code of the projects holding a workerd's memory past its resident bound (`boundBytes`), or
 * undefined when V8's account cannot say. It says only when it explains the memory (the isolates together hold at
 * least half of `residentBytes`: memory V8 does not count, such as response bodies workerd holds, leaves the
 * account short). Named: every project holding a quarter of the bound (two projects of one tenant sharing the
 * growth, or a decoy's memory parked beside it), and the largest holders until they hold half of what projects
 * hold, each holding at least a thirty-second of the bound ({@link MEMORY_CULPRIT_FLOOR}), and only if they reach
 * half: growth spread over many projects of one tenant is laid on them (five at a fifth each), never on apps
 * holding what apps usually do, nor on the few above the floor while many just under it hold the rest.
 * Each project's figure is summed over its isolates, so a project spreading its memory over several apps is found
 * as one holding all of it. `projectOf` names the project of an app's code fingerprint; an isolate of no app's
 * (the dispatcher's) is nobody's.
 */
/** A project holding less than this fraction of a shard's bound (1/32: 48 MiB of the chart's 1.5 GiB) is never named for it but as a quarter holder. */
export const MEMORY_CULPRIT_FLOOR = 32;

export function memoryCulprit(holdings: readonly IsolateHolding[], residentBytes: number, boundBytes: number, projectOf: (fingerprint: string) => string | undefined): string[] | undefined {
  const total = holdings.reduce((sum, holding) => sum + holding.bytes, 0);
  if (total * 2 < residentBytes) return undefined;
  const byProject = new Map<string, { bytes: number; fingerprints: string[] }>();
  for (const holding of holdings) {
    const projects = new Set(holding.fingerprints.map(projectOf));
    const [project] = projects;
    if (projects.size !== 1 || project === undefined) continue;
    const held = byProject.get(project) ?? { bytes: 0, fingerprints: [] };
    held.bytes += holding.bytes;
    held.fingerprints.push(...holding.fingerprints);
    byProject.set(project, held);
  }
  const byBytes = [...byProject.values()].sort((a, b) => b.bytes - a.bytes);
  const attributed = byBytes.reduce((sum, held) => sum + held.bytes, 0);
  let holders: (typeof byBytes)[number][] = [];
  let covered = 0;
  for (const held of byBytes) {
    const quarter = held.bytes * 4 >= boundBytes;
    if (!quarter && (covered * 2 >= attributed || held.bytes * MEMORY_CULPRIT_FLOOR < boundBytes)) break;
    holders.push(held);
    covered += held.bytes;
  }
  // The largest holders are named only when together they hold half: growth spread over many projects each just under
  // the floor would otherwise have the few honest apps above it named in their place.
  if (covered * 2 < attributed) holders = holders.filter((held) => held.bytes * 4 >= boundBytes);
  if (holders.length === 0) return undefined;
  return [...new Set(holders.flatMap((held) => held.fingerprints))];
}
