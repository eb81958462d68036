import { CREATED_BY_USER_ANNOTATION, type Project } from '../apis/v1alpha1/project.ts';

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
