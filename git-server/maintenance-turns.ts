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
