// What git's receive-pack checks before it moves a ref: that the new tips exist, that a branch points at a
// commit, and that everything reachable from the new tips is either in the pushed pack or already in the
// repository (so a client cannot publish a ref whose history is missing).
import { runGit } from '../../../src/git/run-git.ts';

/** The type of each object (`commit`, `tree`, `blob`, `tag`), or `missing`. */
export async function objectTypes(oids: readonly string[], env: Record<string, string>): Promise<Map<string, string>> {
  const types = new Map<string, string>();
  if (oids.length === 0) return types;
  const { stdout } = await runGit(['cat-file', '--batch-check=%(objectname) %(objecttype)'], { env, stdin: `${oids.join('\n')}\n` });
  for (const line of stdout.toString().split('\n')) {
    const [oid, type] = line.split(' ');
    if (oid && type) types.set(oid, type);
  }
  return types;
}

/** True when the history of `tips` is complete (`git rev-list --objects … --not --all`, as git does). */
export async function isConnected(tips: readonly string[], env: Record<string, string>): Promise<boolean> {
  if (tips.length === 0) return true;
  const result = await runGit(['rev-list', '--objects', '--stdin', '--not', '--all', '--quiet'], {
    env,
    stdin: `${tips.join('\n')}\n`,
    okCodes: [0, 1, 128],
  });
  return result.code === 0;
}
