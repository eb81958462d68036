import { CREATED_BY_USER_ANNOTATION, type Project } from '../apis/v1alpha1/project.ts';
import type { Informer } from '../kube/index.ts';

/**
 * Whom a project's use of capacity shared with other tenants counts against: the user who created it through the
 * API, or the project itself when that is not known (made with kubectl, or before the API recorded its maker). A
 * user may create up to 50 projects, so a bound kept per project alone would give one person 50 shares of it.
 * `:` is in no project name, so a user's account never meets a project's.
 */
export function projectAccount(name: string, project: Pick<Project, 'metadata'> | undefined): string {
  const creator = project?.metadata?.annotations?.[CREATED_BY_USER_ANNOTATION];
  return creator ? `user:${creator}` : `project:${name}`;
}

/** Whom projects count against, read from a cache of the Projects; `waitForSync` resolves once they are listed. */
export interface ProjectAccounts {
  of(project: string): string;
  waitForSync(signal?: AbortSignal): Promise<void>;
}

/**
 * The accounts of the projects `projects` caches. A controller sending them elsewhere (cw-db keeps a database's
 * share) waits for the list first: until then every project would pass for its own account, and the key would flip.
 */
export function projectAccounts(projects: Pick<Informer<Project>, 'get' | 'waitForSync'>): ProjectAccounts {
  return { of: (project) => projectAccount(project, projects.get(project)), waitForSync: (signal) => projects.waitForSync(signal) };
}
