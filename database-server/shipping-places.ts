// The shipping rounds' places (SHIPPING_AT_ONCE uploads at once) shared between projects, as a shard's slots are
// (shards/project-slots.ts): one project's many databases with long uploads held every place, and no other
// project's commits reached the bucket, nor was its WAL checkpointed by the rounds, until one of them ended.

/** The most places one project holds while another project's tenants wait: half of them. */
export function projectShare(places: number): number {
  return Math.max(1, Math.floor(places / 2));
}

/** The most uploads the rounds run at once: the places, and those lent beyond them ({@link shareOut}). */
export function mostAtOnce(places: number): number {
  return places + projectShare(places);
}

/**
 * Which of the tenants `offered` (waiting to ship, in turn order) start now, given the places each project holds
 * (`held`, by project). Those of projects under their share first; a place still free then goes to the next one
 * offered anyway (none idles while tenants wait). With every place taken and some project holding more than its
 * share, a project holding none is lent one beyond them, up to a share more in all: it does not wait for that
 * project's uploads to end. Places shared fairly lend nothing: the next round's turn comes soon enough.
 */
export function shareOut<T>(offered: readonly T[], projectOf: (item: T) => string, held: ReadonlyMap<string, number>, places: number): T[] {
  const share = projectShare(places);
  const holding = new Map(held);
  const holds = (item: T) => holding.get(projectOf(item)) ?? 0;
  let free = places - [...held.values()].reduce((sum, n) => sum + n, 0);
  const picked = new Set<T>();
  const take = (item: T) => {
    picked.add(item);
    holding.set(projectOf(item), holds(item) + 1);
    free--;
  };
  for (const item of offered) if (free > 0 && holds(item) < share) take(item);
  for (const item of offered) if (free > 0 && !picked.has(item)) take(item);
  for (const item of offered) {
    const hogged = [...holding.values()].some((n) => n > share);
    if (!picked.has(item) && free <= 0 && -free < share && hogged && holds(item) === 0) take(item);
  }
  return offered.filter((item) => picked.has(item));
}
