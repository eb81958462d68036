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

/**
 * Walks a push may cost to find which of its tips have an incomplete history once the walk of all of them failed.
 * Each walk is a git process and a history's worth of reading: a push may name 10,000 refs, and one walk per tip,
 * all at once, started 636 processes and stalled every other request for 6 s at 800 tips (review-177 F1).
 */
export const MAX_TIP_WALKS = 64;

/**
 * Which of `tips` (objects that exist) have a complete history, walking groups one at a time by halves: a group that
 * walks clean is complete, and a failed group whose first half walks clean has its fault in the second, which then
 * needs no walk. So k incomplete tips among n cost about 2·k·log2(n) walks, never more than `maxWalks`, and never two
 * at once; tips still undecided at the bound are in `undecided` (the caller refuses them).
 */
export async function completeTips(
  tips: readonly string[],
  walk: (tips: readonly string[]) => Promise<boolean>,
  maxWalks = MAX_TIP_WALKS,
): Promise<{ complete: Set<string>; incomplete: Set<string>; undecided: Set<string> }> {
  const complete = new Set<string>();
  const incomplete = new Set<string>();
  /** Groups holding at least one incomplete tip. */
  const faulty: (readonly string[])[] = [];
  /** Groups not walked yet. */
  const unknown: (readonly string[])[] = tips.length > 0 ? [tips] : [];
  let walks = 0;
  for (;;) {
    const single = faulty.findIndex((group) => group.length === 1);
    if (single >= 0) {
      incomplete.add(faulty.splice(single, 1)[0]?.[0] ?? '');
      continue;
    }
    if (walks >= maxWalks) break;
    const next = unknown.shift();
    if (next) {
      walks += 1;
      if (await walk(next)) for (const tip of next) complete.add(tip);
      else faulty.push(next);
      continue;
    }
    const group = faulty.shift();
    if (!group) break;
    const half = Math.ceil(group.length / 2);
    const [first, second] = [group.slice(0, half), group.slice(half)];
    walks += 1;
    if (await walk(first)) {
      for (const tip of first) complete.add(tip);
      faulty.push(second);
    } else {
      faulty.push(first);
      unknown.push(second);
    }
  }
  const undecided = new Set(tips.filter((tip) => !complete.has(tip) && !incomplete.has(tip)));
  return { complete, incomplete, undecided };
}
