// Annotated tags point at a tag object; what a listing also shows is the object it finally names (a commit,
// usually). One `git cat-file --batch-check` answers a whole page.
import { runGit } from '../run-git.ts';

/** For each of `oids` that is a tag object, the object it peels to; the others are left out. */
export async function peelTags(dir: string, oids: readonly string[]): Promise<Map<string, string>> {
  const peeled = new Map<string, string>();
  if (oids.length === 0) return peeled;
  const input = oids.map((oid) => `${oid}^{}\n`).join('');
  const { stdout } = await runGit(['-C', dir, 'cat-file', '--batch-check=%(objectname)'], { stdin: input });
  const lines = stdout.toString().split('\n');
  oids.forEach((oid, i) => {
    const target = lines[i]?.trim() ?? '';
    // A missing object reads `<input> missing`; an object that peels to itself is not a tag.
    if (/^[0-9a-f]{40,64}$/.test(target) && target !== oid) peeled.set(oid, target);
  });
  return peeled;
}
