import type { Project } from '../../src/apis/v1alpha1/project.ts';
import { isTrue } from '../../src/conditions/index.ts';

/** A project as the REST API shows it. */
export interface ProjectView {
  project_id: string;
  name: string;
  /** The namespace holding the project's resources, once the operator has created it. */
  namespace: string | null;
  ready: boolean;
  created_at: string;
  /** The caller's role; absent for administrators who are not members. */
  role?: 'owner' | 'member';
}

export function projectView(project: Project, userId?: string): ProjectView {
  const role = project.spec.members?.find((m) => m.user === userId)?.role;
  return {
    project_id: project.metadata?.name ?? '',
    name: project.spec.displayName,
    namespace: project.status?.namespace ?? null,
    ready: isTrue(project.status?.conditions ?? [], 'Ready'),
    created_at: project.metadata?.creationTimestamp ?? '',
    ...(role ? { role } : {}),
  };
}
