// The git benchmark's repository: generated deterministically from a seed as a `git fast-import` stream, so
// every machine benchmarks the same objects, and cached under ~/.cache/cloudwright/bench/ by generator
// version and parameters (generation takes about a minute; a cached repository is reused at once).
//
// The shape aims at a real project's: a source tree of a few thousand files of code-like text in nested
// directories; most commits edit a few lines of a few files, with hot files edited far more often than cold
// ones; files are added and deleted over time; feature branches merged back with merge commits; release
// branches with fixes of their own; annotated and lightweight tags.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdirSync, renameSync, rmSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { runGit } from '../src/git/run-git.ts';

/** Bumped whenever the stream below changes, so an old cached repository is never taken for a new one. */
export const GENERATOR_VERSION = 1;

export interface RepoShape {
  /** Commits in all (merges included). */
  readonly commits: number;
  /** Files in the first commit; the tree grows by about half over the history. */
  readonly files: number;
  readonly seed: number;
}

export const DEFAULT_SHAPE: RepoShape = { commits: 20_000, files: 3000, seed: 1 };

/** mulberry32: a small, fast, seeded PRNG; the same seed gives the same repository everywhere. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

class Source {
  readonly #rand: () => number;
  readonly words: string[];
  constructor(seed: number) {
    this.#rand = prng(seed);
    const syllables = ['ka', 'lo', 'mi', 'ne', 'ro', 'ta', 'vi', 'zu', 'pe', 'do', 'gra', 'sel', 'tor', 'fin', 'bar', 'qu'];
    this.words = Array.from({ length: 600 }, () => Array.from({ length: 2 + this.int(3) }, () => this.pick(syllables)).join(''));
  }
  next(): number {
    return this.#rand();
  }
  int(n: number): number {
    return Math.floor(this.#rand() * n);
  }
  pick<T>(items: readonly T[]): T {
    return items[this.int(items.length)] as T;
  }
  /** Skewed towards the start: the first items are picked far more often (common words, hot files). */
  skewed(n: number, power = 3): number {
    return Math.min(n - 1, Math.floor(n * this.#rand() ** power));
  }
  word(): string {
    return this.words[this.skewed(this.words.length)] as string;
  }
  line(depth: number): string {
    const pad = '  '.repeat(depth);
    switch (this.int(8)) {
      case 0:
        return `${pad}// ${Array.from({ length: 3 + this.int(8) }, () => this.word()).join(' ')}`;
      case 1:
        return `${pad}if (${this.word()}.${this.word()} > ${this.int(1000)}) {`;
      case 2:
        return `${pad}return ${this.word()}(${this.word()}, ${this.word()});`;
      case 3:
        return `${pad}export function ${this.word()}${this.word()}(${this.word()}: ${this.pick(['string', 'number', 'Options', 'Buffer'])}) {`;
      default:
        return `${pad}const ${this.word()}_${this.word()} = ${this.word()}.${this.word()}(${this.int(100)}, '${this.word()}');`;
    }
  }
  lines(count: number): string[] {
    return Array.from({ length: count }, () => this.line(this.int(4)));
  }
}

interface Person {
  readonly name: string;
  readonly email: string;
}

/**
 * The fast-import stream of the repository `shape` describes, in chunks. Deterministic: it depends on
 * `shape` and GENERATOR_VERSION alone (no clock, no environment).
 */
export function* fastImportStream(shape: RepoShape): Generator<string> {
  const src = new Source(shape.seed);
  const dirs = Array.from({ length: 40 }, (_, i) => `${src.pick(['src', 'lib', 'pkg', 'internal'])}/${src.word()}${i}/${i % 3 === 0 ? `${src.word()}/` : ''}`);
  const newPath = (i: number) => `${src.pick(dirs)}${src.word()}_${i}.${src.pick(['ts', 'ts', 'ts', 'go', 'py', 'md'])}`;
  const people: Person[] = Array.from({ length: 24 }, (_, i) => ({ name: `${src.word()} ${src.word()}`, email: `dev${i}@example.test` }));
  let time = Date.UTC(2016, 0, 4) / 1000;
  let mark = 0;
  let made = 0;
  let nextFile = 0;

  /** One commit on `ref`; `files` is the branch's tree, changed in place (copy on write of each file). */
  function* commit(
    ref: string,
    files: Map<string, string[]>,
    options: { from?: number; merge?: number; edits: number; adds?: number; deletes?: number; message?: string; apply?: ReadonlyMap<string, string[] | null> },
  ): Generator<string, number> {
    const changed = new Map<string, string[] | null>(options.apply ?? []);
    const paths = [...files.keys()];
    for (let e = 0; e < options.edits; e++) {
      // The hottest file gets about 0.5 % of the edits (power 1.6 over a few thousand files), as in real projects.
      const path = paths[src.skewed(paths.length, 1.6)] as string;
      const lines = [...(changed.get(path) ?? files.get(path) ?? [])];
      const at = src.int(lines.length + 1);
      // Most edits change a line or two; some insert a block, some remove one: files grow slowly.
      const kind = src.int(20);
      if (kind < 12) lines.splice(at, Math.min(1 + src.int(2), lines.length - at), ...src.lines(1 + src.int(2)));
      else if (kind < 17) lines.splice(at, 0, ...src.lines(3 + src.int(25)));
      else lines.splice(at, Math.min(3 + src.int(10), lines.length - at));
      changed.set(path, lines);
    }
    for (let a = 0; a < (options.adds ?? 0); a++) changed.set(newPath(nextFile++), src.lines(20 + src.int(180)));
    for (let d = 0; d < (options.deletes ?? 0) && paths.length > 10; d++) changed.set(paths[paths.length - 1 - src.int(paths.length / 2)] as string, null);

    const who = people[src.skewed(people.length)] as Person;
    time += 300 + src.int(12 * 3600);
    const message =
      options.message ??
      `${src.pick(['Fix', 'Add', 'Refactor', 'Speed up', 'Document', 'Remove', 'Handle'])} ${src.word()} ${src.word()} in ${src.word()}\n\n${Array.from({ length: src.int(30) }, () => src.word()).join(' ')}\n`;
    mark++;
    const header = [
      `commit ${ref}`,
      `mark :${mark}`,
      `author ${who.name} <${who.email}> ${time} +0000`,
      `committer ${who.name} <${who.email}> ${time} +0000`,
      `data ${Buffer.byteLength(message)}`,
      message,
      ...(options.from ? [`from :${options.from}`] : []),
      ...(options.merge ? [`merge :${options.merge}`] : []),
    ];
    yield `${header.join('\n')}\n`;
    for (const [path, lines] of changed) {
      if (lines === null) {
        files.delete(path);
        yield `D ${path}\n`;
      } else {
        files.set(path, lines);
        const body = `${lines.join('\n')}\n`;
        yield `M 100644 inline ${path}\ndata ${Buffer.byteLength(body)}\n${body}\n`;
      }
    }
    made++;
    return mark;
  }

  const main = new Map<string, string[]>();
  for (let i = 0; i < shape.files; i++) main.set(newPath(nextFile++), src.lines(20 + src.int(180)));
  let mainTip = yield* commit('refs/heads/main', main, { edits: 0, message: 'Initial import\n' });
  let releases = 0;
  let features = 0;
  while (made < shape.commits) {
    const step = made;
    if (step % 150 === 149) {
      // A feature branch of a few commits, merged back with a merge commit (the last few stay open).
      const open = shape.commits - made < 1500;
      const ref = open ? `refs/heads/feature/${src.word()}-${++features}` : 'refs/heads/wip';
      const branch = new Map(main);
      let tip = yield* commit(ref, branch, { from: mainTip, edits: 1 + src.int(4), adds: src.int(2) });
      for (let k = src.int(6); k > 0; k--) tip = yield* commit(ref, branch, { edits: 1 + src.int(4) });
      if (!open) {
        // The merge's tree is the branch's (main has not moved meanwhile): list what differs from main's.
        const apply = new Map<string, string[] | null>();
        for (const [path, lines] of branch) if (main.get(path) !== lines) apply.set(path, lines);
        for (const path of main.keys()) if (!branch.has(path)) apply.set(path, null);
        mainTip = yield* commit('refs/heads/main', main, { from: mainTip, merge: tip, edits: 0, apply, message: `Merge branch 'feature-${++features}'\n` });
      }
      continue;
    }
    if (step % 2000 === 1999) {
      // A release branch off main with a couple of fixes, tagged lightly; main gets an annotated tag.
      releases++;
      const branch = new Map(main);
      let tip = yield* commit(`refs/heads/release/${releases}.x`, branch, { from: mainTip, edits: 1 + src.int(2) });
      tip = yield* commit(`refs/heads/release/${releases}.x`, branch, { edits: 1 + src.int(2) });
      yield `reset refs/tags/v${releases}.0.1\nfrom :${tip}\n\n`;
      const note = `Release ${releases}.0\n`;
      yield `tag v${releases}.0.0\nfrom :${mainTip}\ntagger Release Bot <release@example.test> ${time} +0000\ndata ${Buffer.byteLength(note)}\n${note}\n`;
      continue;
    }
    const roll = src.int(100);
    mainTip = yield* commit('refs/heads/main', main, { edits: 1 + src.skewed(6), adds: roll < 8 ? 1 : 0, deletes: roll === 99 ? 1 : 0 });
  }
  yield 'done\n';
}

/**
 * A bare repository of `shape`: from the cache when there, otherwise generated into it (fast-import, then one
 * `git repack -a -d -f`, as after a gc; no bitmaps or commit-graph, which cw-git's copies do not have either). Answers its path.
 */
export async function generatedRepo(shape: RepoShape, log: (message: string) => void): Promise<string> {
  const root = join(process.env.XDG_CACHE_HOME ?? join(homedir(), '.cache'), 'cloudwright', 'bench');
  const dir = join(root, `git-repo-v${GENERATOR_VERSION}-${shape.commits}c-${shape.files}f-s${shape.seed}.git`);
  if (existsSync(join(dir, 'cloudwright-complete'))) return dir;
  mkdirSync(root, { recursive: true });
  const tmp = `${dir}.tmp-${process.pid}`;
  rmSync(tmp, { recursive: true, force: true });
  log(`generating a repository of ${shape.commits} commits and ${shape.files} files (seed ${shape.seed}) into ${dir}; cached for next time`);
  const t0 = Date.now();
  await runGit(['init', '--quiet', '--bare', '--initial-branch=main', tmp]);
  const child = spawn('git', ['-C', tmp, 'fast-import', '--quiet', '--depth=50'], { stdio: ['pipe', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-4000)));
  const exited = once(child, 'close') as Promise<[number | null]>;
  for (const chunk of fastImportStream(shape)) {
    if (!child.stdin.write(chunk)) await once(child.stdin, 'drain');
  }
  child.stdin.end();
  const [code] = await exited;
  if (code !== 0) throw new Error(`git fast-import exited with ${code}: ${stderr.trim().split('\n').at(-1) ?? ''}`);
  await runGit(['-C', tmp, 'update-ref', '-d', 'refs/heads/wip']);
  // fast-import picks poor delta bases; -f finds the ones `git gc` would (pack size drops about sixfold).
  await runGit(['-C', tmp, '-c', 'repack.writeBitmaps=false', 'repack', '-a', '-d', '-f', '-q', '--window=10', '--depth=50']);
  await runGit(['-C', tmp, 'prune-packed']);
  await import('node:fs/promises').then((fs) => fs.writeFile(join(tmp, 'cloudwright-complete'), `${GENERATOR_VERSION}\n`));
  rmSync(dir, { recursive: true, force: true });
  renameSync(tmp, dir);
  log(`generated in ${((Date.now() - t0) / 1000).toFixed(0)} s`);
  return dir;
}
