// The shipping rounds' places (SHIPPING_AT_ONCE uploads at once) shared between projects, as a shard's slots are
// (shards/project-slots.ts): one project's many databases with long uploads held every place, and no other
// project's commits reached the bucket, nor was its WAL checkpointed by the rounds, until one of them ended.
// Places go to projects first, in turn, then to a project's tenants in turn (review-178 P1, P2): a turn order over
// tenants restarted every round at a tenant its project's share refused, so the tenants after it took every place
// and those further on never shipped; and two projects at their half lent nothing to a third.

/** The most places lent beyond the cap to projects holding none: half of them. */
export function projectShare(places: number): number {
  return Math.max(1, Math.floor(places / 2));
}

/** The most uploads the rounds run at once: the places, and those lent beyond them ({@link shareOut}). */
export function mostAtOnce(places: number): number {
  return places + projectShare(places);
}

/** A project's tenants waiting to ship, in their turn order. */
export interface ProjectQueue<T> {
  readonly project: string;
  readonly waiting: readonly T[];
}

/**
 * Which of the waiting tenants start now, given the places each project holds (`held`), the projects offered in
 * turn order. A project's fair part is the places over the projects waiting or holding any. Projects holding none
 * come first, one place each; then one place a project at a time, in turn, to those under their fair part; a place
 * still free then goes round to any (none idles while tenants wait). With every place taken and some project holding
 * more than its fair part (its long uploads), a project holding none is lent one beyond them, up to half the places
 * more in all: it does not wait for that project's uploads to end.
 */
export function shareOut<T>(queues: readonly ProjectQueue<T>[], held: ReadonlyMap<string, number>, places: number): T[] {
  const holding = new Map(held);
  const holds = (project: string) => holding.get(project) ?? 0;
  const contenders = new Set([...queues.filter((q) => q.waiting.length > 0).map((q) => q.project), ...[...held].filter(([, n]) => n > 0).map(([p]) => p)]);
  const fair = Math.max(1, Math.ceil(places / Math.max(1, contenders.size)));
  let free = places - [...held.values()].reduce((sum, n) => sum + n, 0);
  const next = new Map(queues.map((q) => [q.project, 0]));
  const picked: T[] = [];
  const take = (queue: ProjectQueue<T>): boolean => {
    const at = next.get(queue.project) ?? 0;
    const item = queue.waiting[at];
    if (item === undefined) return false;
    next.set(queue.project, at + 1);
    holding.set(queue.project, holds(queue.project) + 1);
    picked.push(item);
    free--;
    return true;
  };
  for (const queue of queues) if (free > 0 && holds(queue.project) === 0) take(queue);
  for (const underFair of [true, false]) {
    for (let progress = true; free > 0 && progress;) {
      progress = false;
      for (const queue of queues) if (free > 0 && (!underFair || holds(queue.project) < fair) && take(queue)) progress = true;
    }
  }
  // Lending adds one place to projects holding none, which never makes one hold more than its fair part (1 at least).
  const hogged = [...holding.values()].some((n) => n > fair);
  for (const queue of queues) if (hogged && free <= 0 && -free < projectShare(places) && holds(queue.project) === 0) take(queue);
  return picked;
}

/**
 * The rounds' turns: each round offers the projects from the one after the last served, and a project's tenants
 * from the one after its last started, so every waiting tenant's turn comes within a bounded number of places freed
 * whatever the others do.
 */
export class ShippingTurns {
  readonly #places: number;
  #lastProject: string | undefined;
  readonly #lastTenant = new Map<string, string>();

  constructor(places: number) {
    this.#places = places;
  }

  /** Which of `waiting` start now; `held`: the places each project holds; `names`: an item's project and tenant. */
  pick<T>(waiting: readonly T[], held: ReadonlyMap<string, number>, names: (item: T) => { project: string; tenant: string }): T[] {
    const byProject = new Map<string, { tenant: string; item: T }[]>();
    for (const item of waiting) {
      const { project, tenant } = names(item);
      const list = byProject.get(project) ?? [];
      list.push({ tenant, item });
      byProject.set(project, list);
    }
    for (const project of this.#lastTenant.keys()) if (!byProject.has(project)) this.#lastTenant.delete(project);
    const queues = rotated([...byProject.keys()], this.#lastProject, (p) => p).map((project) => ({
      project,
      waiting: rotated(byProject.get(project) ?? [], this.#lastTenant.get(project), (t) => t.tenant).map((t) => t.item),
    }));
    const picked = shareOut(queues, held, this.#places);
    for (const item of picked) {
      const { project, tenant } = names(item);
      this.#lastProject = project;
      this.#lastTenant.set(project, tenant);
    }
    return picked;
  }
}

/** `items` sorted by key, from the first one after `last`. */
function rotated<T>(items: readonly T[], last: string | undefined, key: (item: T) => string): T[] {
  const sorted = [...items].sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0));
  const at = last === undefined ? 0 : sorted.findIndex((item) => key(item) > last);
  return at <= 0 ? sorted : [...sorted.slice(at), ...sorted.slice(0, at)];
}
