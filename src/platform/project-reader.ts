import type { Project } from '../apis/v1alpha1/index.ts';
import type { ProjectRole } from '../auth/ports.ts';

/**
 * What the API reads about projects beyond a single membership (`TokenStore.getMembership`): the listing
 * behind `GET /projects`. Answers from a cache, like the token store.
 */
export interface ProjectReader {
  /**
   * The projects `userId` is a member of, sorted by name; every project when `options.admin` is true.
   *
   * `admin` must be the caller's *effective* administrator flag (`Principal.admin`: an administrator whose
   * token carries the `admin` scope), not `User.spec.admin`, so an administrator's everyday token lists
   * only the projects its user belongs to, as src/auth/README.md decides. Required so nobody passes it by
   * accident. The objects are copies; changing them changes nothing cached.
   */
  listProjectsForUser(userId: string, options: { readonly admin: boolean }): Promise<Project[]>;
}

/** The user's role in the project, or `undefined` when not a member. */
export function roleIn(project: Project | undefined, userId: string): ProjectRole | undefined {
  return project?.spec.members?.find((member) => member.user === userId)?.role;
}

/** The projects `userId` may see (all of them for an effective administrator), sorted by name, copied. */
export function projectsVisibleTo(projects: readonly Project[], userId: string, admin: boolean): Project[] {
  return projects
    .filter((project) => admin || roleIn(project, userId) !== undefined)
    .sort((a, b) => byName(a, b))
    .map((project) => structuredClone(project));
}

// Code-point order, not locale order: names are DNS labels and the listing must not depend on the machine.
function byName(a: Project, b: Project): number {
  const [x, y] = [a.metadata?.name ?? '', b.metadata?.name ?? ''];
  return x < y ? -1 : x > y ? 1 : 0;
}
