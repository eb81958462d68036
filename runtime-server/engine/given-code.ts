/** Codes remembered for each project (its apps, each with a tail or not, and a few deploys back). */
const CODES_PER_PROJECT = 256;
/** Projects remembered: past it the one given code longest ago is forgotten. */
const PROJECTS_KEPT = 20_000;

/**
 * What shards' workerd were given, per project: the code (fingerprint and tail) and the apps it was for. Code given
 * again is loaded again, not new, and an app's first code in the process is not new either: both are the platform's
 * doing, not the tenant's (`startup-budget.ts`). Bounded per project, so that a tenant making many codes forgets only
 * its own.
 */
export class GivenCode {
  readonly #projects = new Map<string, { readonly codes: Set<string>; readonly apps: Set<string> }>();

  /** Whether `code` of app `app` of `project` is the platform's doing: given before, or the app's first. */
  byPlatform(project: string, app: string, code: string): boolean {
    const given = this.#projects.get(project);
    return !given || given.codes.has(code) || !given.apps.has(app);
  }

  given(project: string, app: string, code: string): void {
    let given = this.#projects.get(project);
    if (given) this.#projects.delete(project);
    else given = { codes: new Set(), apps: new Set() };
    this.#projects.set(project, given);
    if (this.#projects.size > PROJECTS_KEPT) this.#projects.delete(this.#projects.keys().next().value!);
    latest(given.codes, code);
    latest(given.apps, app);
  }
}

function latest(set: Set<string>, item: string): void {
  set.delete(item);
  set.add(item);
  if (set.size > CODES_PER_PROJECT) set.delete(set.values().next().value!);
}
