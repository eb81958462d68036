// The tree's one rule (docs/architecture.md): each binary's code lives in its own folder, and `src/` holds only
// what two or more binaries share. Checked on the import graph of the checked-in sources, so a move that breaks
// the rule fails here rather than in review.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { posix } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = posix.resolve(import.meta.dirname, '..');

/** Each server binary: its entry point in bin/ and the folder that holds its code. */
const BINARIES = {
  'cw-api': 'api',
  'cw-operator': 'operator',
  'cw-runtime': 'runtime-server',
  'cw-git': 'git-server',
  'cw-db': 'database-server',
} as const;
type Binary = keyof typeof BINARIES;

const files = execFileSync('git', ['ls-files', '*.ts', '*.js'], { cwd: ROOT, encoding: 'utf8' })
  .split('\n')
  .filter((f) => f !== '' && !f.includes('node_modules/'));
const fileSet = new Set(files);

/** Tests and their helpers wire binaries together on purpose (an API test runs the real controllers). */
function isTestCode(file: string): boolean {
  return file.endsWith('.test.ts') || file.split('/').includes('testing');
}

// Static `import … from`, `export … from`, side-effect `import '…'` and literal dynamic `import('…')`: the only
// forms the code base uses (a computed dynamic import would not be followed, and none exists).
const SPECIFIER = /(?:^|[\s;])(?:import|export)\s[^'"]*?from\s+['"](\.{1,2}\/[^'"]+)['"]|(?:^|[\s;])import\s+['"](\.{1,2}\/[^'"]+)['"]|\bimport\(\s*['"](\.{1,2}\/[^'"]+)['"]\s*\)/g;

const importCache = new Map<string, string[]>();
/** The checked-in files `file` imports by relative path. */
function importsOf(file: string): string[] {
  let found = importCache.get(file);
  if (!found) {
    found = [];
    for (const match of readFileSync(posix.join(ROOT, file), 'utf8').matchAll(SPECIFIER)) {
      const target = posix.normalize(posix.join(posix.dirname(file), match[1] ?? match[2] ?? match[3] ?? ''));
      const resolved = [target, `${target}.ts`, `${target}/index.ts`].find((candidate) => fileSet.has(candidate));
      if (resolved) found.push(resolved);
    }
    importCache.set(file, found);
  }
  return found;
}

/** The binary whose folder holds `file`, if any. */
function ownerOf(file: string): Binary | undefined {
  return (Object.keys(BINARIES) as Binary[]).find((binary) => file.startsWith(`${BINARIES[binary]}/`) || file === `bin/${binary}.ts`);
}

/** Every file the binary's entry point reaches through production imports. */
function reachedFrom(binary: Binary): Set<string> {
  const seen = new Set<string>();
  const stack = [`bin/${binary}.ts`];
  for (let file = stack.pop(); file !== undefined; file = stack.pop()) {
    if (seen.has(file)) continue;
    seen.add(file);
    stack.push(...importsOf(file));
  }
  return seen;
}

describe('one home per binary', () => {
  it('finds every binary and its folder', () => {
    for (const [binary, folder] of Object.entries(BINARIES)) {
      expect(fileSet.has(`bin/${binary}.ts`), binary).toBe(true);
      expect(
        files.some((f) => f.startsWith(`${folder}/`)),
        folder,
      ).toBe(true);
    }
  });

  it("a binary's code imports only its own folder and src/", () => {
    const crossings = files
      .filter((file) => !isTestCode(file))
      .flatMap((file) => {
        const owner = ownerOf(file);
        if (!owner) return [];
        return importsOf(file)
          .filter((target) => {
            const targetOwner = ownerOf(target);
            return targetOwner !== undefined && targetOwner !== owner;
          })
          .map((target) => `${file} -> ${target}`);
      });
    expect(crossings).toEqual([]);
  });

  it("src/ imports no binary's code", () => {
    const crossings = files
      .filter((file) => file.startsWith('src/') && !isTestCode(file))
      .flatMap((file) =>
        importsOf(file)
          .filter((target) => ownerOf(target) !== undefined)
          .map((target) => `${file} -> ${target}`),
      );
    expect(crossings).toEqual([]);
  });

  it("a binary never reaches another binary's folder, however indirectly", () => {
    const strays = (Object.keys(BINARIES) as Binary[]).flatMap((binary) =>
      [...reachedFrom(binary)].filter((file) => ownerOf(file) !== undefined && ownerOf(file) !== binary).map((file) => `${binary}: ${file}`),
    );
    expect(strays).toEqual([]);
  });

  it('every module of src/ is shared by at least two binaries', () => {
    const users = new Map<string, Set<Binary>>();
    for (const binary of Object.keys(BINARIES) as Binary[]) {
      for (const file of reachedFrom(binary)) {
        if (!file.startsWith('src/')) continue;
        // A module is a folder directly under src/, or a file at its top.
        const module = file.split('/').slice(0, 2).join('/');
        users.set(module, (users.get(module) ?? new Set()).add(binary));
      }
    }
    const modules = new Set(files.filter((f) => f.startsWith('src/') && !isTestCode(f)).map((f) => f.split('/').slice(0, 2).join('/')));
    const lonely = [...modules].filter((module) => (users.get(module)?.size ?? 0) < 2).map((module) => `${module}: ${[...(users.get(module) ?? [])].join(', ') || 'no binary'}`);
    expect(lonely).toEqual([]);
  });
});
