// The order a maintenance pass serves marked repositories in: one repository per owner a round, starting after where
// the last pass stopped. In bucket key order, an owner whose name sorts first and who keeps its repositories marked
// was served first in every pass, and the owners after it got what was left of the pass, or nothing (found in review).

/** Whose a marked repository is (`owner/name`). */
export function ownerOf(repo: string): string {
  return repo.slice(0, repo.indexOf('/'));
}

/** Where the passes stand: the owner served last, and each owner's repository served last. */
export class PassCursor {
  #owner: string | undefined;
  readonly #lastRepo = new Map<string, string>();

  /**
   * `items` (each naming its repository) in turn: the owners in name order from the one after the owner served last,
   * round-robin, one repository of each owner a round; each owner's repositories in name order from the one after
   * its repository served last. A pass that stops early (its bound, an owner's budget) resumes there next time.
   */
  order<T extends { readonly repo: string }>(items: readonly T[]): T[] {
    const byOwner = new Map<string, T[]>();
    for (const item of [...items].sort((a, b) => compare(a.repo, b.repo))) {
      const owner = ownerOf(item.repo);
      byOwner.set(owner, [...(byOwner.get(owner) ?? []), item]);
    }
    // Owners no longer marked are forgotten: the cursor stays as small as the markers.
    for (const owner of this.#lastRepo.keys()) if (!byOwner.has(owner)) this.#lastRepo.delete(owner);
    const owners = after([...byOwner.keys()], this.#owner, (o) => o);
    const queues = owners.map((owner) => after(byOwner.get(owner) ?? [], this.#lastRepo.get(owner), (item) => item.repo));
    const ordered: T[] = [];
    for (let round = 0; ordered.length < items.length; round++) {
      for (const queue of queues) {
        const item = queue[round];
        if (item !== undefined) ordered.push(item);
      }
    }
    return ordered;
  }

  /** `repo` was served (its units ran, or it was found done): the next pass starts after it and its owner. */
  served(repo: string): void {
    this.#owner = ownerOf(repo);
    this.#lastRepo.set(this.#owner, repo);
  }
}

/** `sorted` rotated to start with the first element whose key sorts after `last` (all of them when none was). */
function after<T>(sorted: readonly T[], last: string | undefined, key: (item: T) => string): T[] {
  if (last === undefined) return [...sorted];
  const at = sorted.findIndex((item) => compare(key(item), last) > 0);
  return at < 0 ? [...sorted] : [...sorted.slice(at), ...sorted.slice(0, at)];
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** The most passes a unit cut at its deadline is skipped for, however often it was cut. */
export const MAX_BACKOFF_PASSES = 32;

/**
 * Units cut at their deadline, by repository and op: one cut `n` times in a row is skipped for the next
 * `min(2^(n-1), MAX_BACKOFF_PASSES)` passes, so a compaction that always needs more than the deadline no longer takes
 * a deadline of every pass. It lives with the cursor, in the maintainer: a restart, or another maintainer, starts over.
 */
export class CutBackoff {
  /** `repo\0op` → cuts in a row, and the first pass it may run again. */
  readonly #cut = new Map<string, { cuts: number; until: number }>();

  /** Whether `op` of `repo` sits pass `pass` out. */
  skips(repo: string, op: string, pass: number): boolean {
    return (this.#cut.get(`${repo}\0${op}`)?.until ?? 0) > pass;
  }

  /** `op` of `repo` was cut at its deadline in pass `pass`: how many times in a row, and how many passes it sits out. */
  cut(repo: string, op: string, pass: number): { cuts: number; skipPasses: number } {
    const key = `${repo}\0${op}`;
    const cuts = (this.#cut.get(key)?.cuts ?? 0) + 1;
    const skipPasses = Math.min(2 ** (cuts - 1), MAX_BACKOFF_PASSES);
    this.#cut.set(key, { cuts, until: pass + 1 + skipPasses });
    return { cuts, skipPasses };
  }

  /** `op` of `repo` succeeded: the next cut starts the count again. */
  ended(repo: string, op: string): void {
    this.#cut.delete(`${repo}\0${op}`);
  }

  /** Repositories no longer marked are forgotten: the record stays as small as the markers. */
  keep(repos: ReadonlySet<string>): void {
    for (const key of this.#cut.keys()) if (!repos.has(key.slice(0, key.indexOf('\0')))) this.#cut.delete(key);
  }
}
