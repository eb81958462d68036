import type { ProjectInvitation, ProjectRole, ProjectSpec } from '../../src/apis/v1alpha1/project.ts';
import { invitationExpiry } from './project-invitations.ts';

/** An invitation as the REST API shows it. */
export interface InvitationView {
  project_id: string;
  project_name: string;
  user_id: string;
  role: ProjectRole;
  invited_by: string;
  invited_at: string;
  expires_at: string;
}

export function invitationView(projectId: string, spec: ProjectSpec, invitation: ProjectInvitation): InvitationView {
  return {
    project_id: projectId,
    project_name: spec.displayName,
    user_id: invitation.user,
    role: invitation.role,
    invited_by: invitation.invitedBy,
    invited_at: invitation.invitedAt,
    expires_at: invitationExpiry(invitation).toISOString(),
  };
}
