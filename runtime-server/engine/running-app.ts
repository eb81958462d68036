// Which app's code a stuck workerd shard was running, asked of the thread itself: workerd cannot say which isolate
// runs, and judging from outside (`blame.ts`) lays a stall on whichever app had a request in flight, though the
// code looping may be another app's work after its answer (`ctx.waitUntil`). The thread's program counter, or the
// innermost return address on its stack, falls in code V8 compiled for one isolate, and that isolate runs one app's
// modules (`isolate-code.ts` reads both from what V8 writes, so a tenant cannot forge the answer). It can only be
// missing (a platform without these files), and then the rules of `blame.ts` decide as before.
import { closeSync, openSync, readFileSync, readSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { readIsolateCode, type IsolateCode } from './isolate-code.ts';
import { memoryCulprit, type IsolateMemory } from './isolate-memory.ts';

/**
 * The V8 flags that have workerd write `<dir>/perf-<pid>.map` (each compiled JavaScript function: its address and
 * name) and give each interpreted function a trampoline of its own there, so a frame of code not compiled yet (a
 * slow loop calling a heavy builtin is never compiled within the CPU bound) has a return address to find too. The
 * trampolines cost about 0.6 KB of code space for each function an app has run. The map goes in the workerd's own
 * directory (V8's default is `/tmp`, where a killed process's map stays). The perf map also turns on V8's event log:
 * a file per isolate in the working directory, which must be the workerd's directory too (`isolate-code.ts` reads it).
 */
export function perfMapFlags(dir: string): string[] {
  return ['--perf-basic-prof-only-functions', `--perf-basic-prof-path=${dir}`, '--interpreted-frames-native-stack'];
}

/** How a module name carries its app: `cw-<fingerprint>/` before the build's own name (one pattern, read and stripped). */
const APP_SCRIPT_PREFIX = 'cw-';
const APP_SCRIPT_SOURCE = String.raw`\bcw-([0-9a-f]{24})\/`;
const APP_SCRIPT = new RegExp(APP_SCRIPT_SOURCE);
const APP_SCRIPTS = new RegExp(APP_SCRIPT_SOURCE, 'g');

/** The directory an app's modules are loaded under, named for its code's fingerprint (`worker-code.ts`). */
export function appScriptDirectory(fingerprint: string): string {
  return `${APP_SCRIPT_PREFIX}${fingerprint}/`;
}

/** `text` (an app's log line, stack or load error) in the build's own module names, without the directory the runtime loads them under. */
export function inBuildNames(text: string): string {
  return text.includes(APP_SCRIPT_PREFIX) ? text.replace(APP_SCRIPTS, '') : text;
}

/**
 * How much of the stack above its pointer is searched for the innermost frame of JavaScript at most: the whole of
 * a main thread's stack (8 MiB by default). A tenant's WebAssembly can fill the stack with frames of its own (deep
 * recursion, a frame of many locals) to push its JavaScript caller far from the pointer.
 */
const STACK_BYTES = 64 * 1024 * 1024;
/** What is read of the stack at a time: most answers are in the first block. */
const STACK_BLOCK = 64 * 1024;
/** How long the process gets to stop once sent SIGSTOP. */
const STOP_WAIT_MS = 200;

/** The isolates of workerd `pid` started with {@link perfMapFlags}`(dir)`, from its perf map and event logs in `dir`. */
export function workerdIsolates(pid: number, dir: string): Promise<IsolateCode> {
  return readIsolateCode(dir, pid, join(dir, `perf-${pid}.map`), (script) => APP_SCRIPT.exec(script)?.[1]);
}

/**
 * The fingerprints of the apps whose modules the isolate workerd's JavaScript thread (its main thread) was running
 * runs: one, or several where that isolate's chunks cannot be told from another's (a page freed and given to
 * another isolate), or `undefined` when it cannot be told. `dir` is the workerd's directory (`perfMapFlags`). Stops
 * the process (SIGSTOP) to read it, and it stays stopped while its files are read (asynchronously: other shards are
 * served meanwhile): the caller kills it next.
 */
export async function runningFingerprints(pid: number, dir: string): Promise<string[] | undefined> {
  try {
    if (!(await stopped(pid))) return undefined;
    const apps = runningAt(pid, await workerdIsolates(pid, dir));
    return apps.length > 0 ? apps : undefined;
  } catch {
    return undefined;
  }
}

/**
 * What workerd `pid`'s JavaScript thread is running, sampled `count` times `gapMs` apart while it runs on: for each
 * sample, the fingerprints of the apps whose code it was in (none: the runtime's own code, or it could not be told,
 * or it could not be stopped). Each sample stops the process (SIGSTOP) for as long as it takes to read its thread's
 * registers and stack, then lets it go on (SIGCONT) unless `keepStopped()` says the watchdog ended it meanwhile (it
 * stops it for its own reading, then kills it); none is taken once `sampling()` says no more. Code compiled after its isolates were read is not found.
 */
export async function sampleRunning(pid: number, dir: string, count: number, gapMs: number, sampling: () => boolean, keepStopped: () => boolean = () => false): Promise<string[][]> {
  const code = await workerdIsolates(pid, dir);
  const samples: string[][] = [];
  for (let i = 0; i < count && sampling(); i++) {
    if (i > 0) await new Promise((resolve) => setTimeout(resolve, gapMs));
    if (!sampling()) break;
    let apps: string[] = [];
    try {
      if (await stopped(pid)) apps = runningAt(pid, code);
    } catch {
      // gone, or not readable: a sample that names nobody
    }
    samples.push(apps);
    // Ended meanwhile (the watchdog stops it for its own reading, then kills it): left stopped for that reading.
    if (keepStopped()) break;
    try {
      process.kill(pid, 'SIGCONT');
    } catch {
      // gone
    }
  }
  return samples;
}

/** The fingerprints of the apps whose code workerd `pid`'s stopped JavaScript thread is in (`code`: its isolates). */
function runningAt(pid: number, code: IsolateCode): string[] {
  // For a thread stopped outside a system call: `-1 <sp> <pc>`; inside one, the call and its arguments first.
  const fields = readFileSync(`/proc/${pid}/task/${pid}/syscall`, 'utf8').trim().split(' ');
  const [sp, pc] = fields.slice(-2).map((field) => BigInt(field));
  if (sp === undefined || pc === undefined) return [];
  let isolates = code.chunkIsolates(Number(pc));
  // In a builtin (a regular expression, JSON.parse) or the runtime's own C++: the innermost JavaScript frame's
  // return address is the nearest address above the stack pointer in compiled code that sits where a call left
  // one (`returnAddresses`).
  for (const word of isolates.length === 0 ? returnAddresses(pid, sp) : []) {
    isolates = code.codeIsolates(word);
    if (isolates.length > 0) break;
  }
  return code.apps(isolates);
}

/**
 * The fingerprints of the apps whose modules ran in the isolate that passed its heap bound and ended workerd `pid`:
 * the isolate V8 collected last as a last resort (`IsolateMemory.lastResort`), whose event log is still in `dir`.
 * Undefined when it cannot be told.
 */
export async function heapFingerprints(memory: IsolateMemory | undefined, pid: number, dir: string): Promise<string[] | undefined> {
  try {
    const traced = memory?.lastResort();
    if (traced === undefined) return undefined;
    const code = await workerdIsolates(pid, dir);
    const apps = code.appsOfIsolate(traced);
    return apps.length > 0 ? apps : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The fingerprints of the code of the project whose isolates hold the memory of workerd `pid` (`residentBytes`, past
 * its bound `boundBytes`), by what each isolate held after its last garbage collection (`memory`), when that account
 * can say (`memoryCulprit`); undefined otherwise. `projectOf` names the project of an app's code fingerprint.
 */
export async function memoryFingerprints(
  memory: IsolateMemory | undefined,
  pid: number,
  dir: string,
  limits: { readonly boundBytes: number; readonly residentBytes: number },
  projectOf: (fingerprint: string) => string | undefined,
): Promise<string[] | undefined> {
  try {
    if (memory === undefined || memory.holdings().size === 0) return undefined;
    const code = await workerdIsolates(pid, dir);
    const holdings = [...memory.holdings()].map(([address, bytes]) => ({ bytes, fingerprints: code.appsOfIsolate(address) }));
    return memoryCulprit(holdings, limits.residentBytes, limits.boundBytes, projectOf);
  } catch {
    return undefined;
  }
}

/**
 * Sends SIGSTOP and waits until the process shows as stopped (most often at once; a process in uninterruptible
 * sleep takes longer), polling without blocking: this thread proxies every tenant's requests meanwhile.
 */
async function stopped(pid: number): Promise<boolean> {
  process.kill(pid, 'SIGSTOP');
  const deadline = performance.now() + STOP_WAIT_MS;
  for (;;) {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The state follows the command name's closing parenthesis: `T` stopped by a signal.
    if (/^\s*[Tt]/.test(stat.slice(stat.lastIndexOf(')') + 1))) return true;
    if (performance.now() >= deadline) return false;
    await sleep(1);
  }
}

/**
 * The words of the stack from `sp` up to the top of its mapping (the live frames), innermost first, that sit where
 * a call into a frame of V8's leaves its return address: right above the frame pointer the callee saved, which
 * points further up this stack (V8 keeps that chain in every frame it builds). A word a tenant's code put on the
 * stack (a WebAssembly local holding a guess of another isolate's code address) would also need a guess of where
 * the stack lies beside it. As numbers (a word past 2^53 is no address of this machine's user space).
 */
function* returnAddresses(pid: number, sp: bigint): Generator<number> {
  const top = mappingEnd(pid, sp);
  if (top === undefined) return;
  const end = Math.min(top, Number(sp) + STACK_BYTES);
  const buffer = Buffer.alloc(STACK_BLOCK);
  const fd = openSync(`/proc/${pid}/mem`, 'r');
  let below: number | undefined; // the word under the current one
  try {
    for (let at = Number(sp); at < end; at += STACK_BLOCK) {
      const got = readSync(fd, buffer, 0, Math.min(STACK_BLOCK, end - at), at);
      if (got <= 0) return;
      for (let offset = 0; offset + 8 <= got; offset += 8) {
        const high = buffer.readUInt32LE(offset + 4);
        const word = high < 0x200000 ? high * 0x100000000 + buffer.readUInt32LE(offset) : undefined;
        const slot = at + offset;
        if (word !== undefined && below !== undefined && below > slot && below < top) yield word;
        below = word;
      }
    }
  } finally {
    closeSync(fd);
  }
}

/** The end of the mapping of process `pid` holding `address` (its stack, for the stack pointer), from `/proc/<pid>/maps`. */
function mappingEnd(pid: number, address: bigint): number | undefined {
  for (const line of readFileSync(`/proc/${pid}/maps`, 'utf8').split('\n')) {
    const [from, to] = (line.split(' ', 1)[0] ?? '').split('-').map((hex) => BigInt(`0x${hex || '0'}`));
    if (from !== undefined && to !== undefined && from <= address && address < to) return Number(to);
  }
  return undefined;
}
