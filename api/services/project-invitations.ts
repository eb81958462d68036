import { MAX_PENDING_INVITATIONS, type ProjectInvitation, type ProjectMember, type ProjectRole, type ProjectSpec } from '../../src/apis/v1alpha1/project.ts';
import { ConflictError, NotFoundError } from '../../src/errors.ts';

/** How long an invitation waits to be accepted, as GitHub's do: after that it lapses and is dropped at the next change. */
export const INVITATION_LIFETIME_MS = 7 * 24 * 60 * 60 * 1000;

export function invitationExpiry(invitation: ProjectInvitation): Date {
  return new Date(Date.parse(invitation.invitedAt) + INVITATION_LIFETIME_MS);
}

/**
 * The invitations of `spec` that stand at `now`: not lapsed (one with an unreadable time counts as lapsed), and made
 * by someone who is still an owner. An owner removed or made a member takes their offers with them, so a co-owner
 * removed for cause cannot let their other accounts in afterwards.
 */
export function pendingInvitations(spec: ProjectSpec, now: number): ProjectInvitation[] {
  const owners = new Set((spec.members ?? []).filter((m) => m.role === 'owner').map((m) => m.user));
  return (spec.invitations ?? []).filter((invitation) => invitationExpiry(invitation).getTime() > now && owners.has(invitation.invitedBy));
}

/** `spec` holding `invitations`; without the field when there are none, as a Project made with kubectl has it. */
export function withInvitations(spec: ProjectSpec, invitations: readonly ProjectInvitation[]): ProjectSpec {
  const { invitations: _dropped, ...rest } = spec;
  return invitations.length > 0 ? { ...rest, invitations: [...invitations] } : rest;
}

/** `spec` with `user` invited (again: a new role and a new week), lapsed invitations dropped. */
export function withInvitation(spec: ProjectSpec, invitation: ProjectInvitation, now: number): ProjectSpec {
  const others = pendingInvitations(spec, now).filter((i) => i.user !== invitation.user);
  if (others.length >= MAX_PENDING_INVITATIONS) {
    throw new ConflictError(`The project has ${others.length} pending invitations, the most it may; withdraw one first, or wait for one to be accepted.`);
  }
  return withInvitations(spec, [...others, invitation]);
}

/** `spec` without `user`'s pending invitation. @throws NotFoundError when they have none. */
export function withoutInvitation(spec: ProjectSpec, projectId: string, user: string, now: number): ProjectSpec {
  const pending = pendingInvitations(spec, now);
  if (!pending.some((i) => i.user === user)) throw new NotFoundError(`${user} has no pending invitation to ${projectId}.`);
  return withInvitations(
    spec,
    pending.filter((i) => i.user !== user),
  );
}

/**
 * `spec` with `user`'s invitation turned into a membership with its role (for a member already, an owner's offer of
 * the owner role). `role` is the role the invitee saw and accepts: an invitation renewed meanwhile with another role
 * is refused, so nobody is made an owner they did not agree to be. @throws NotFoundError when they have no pending
 * invitation; ConflictError when it offers another role.
 */
export function withInvitationAccepted(spec: ProjectSpec, projectId: string, user: string, role: ProjectRole, now: number): { spec: ProjectSpec; member: ProjectMember } {
  const invitation = pendingInvitations(spec, now).find((i) => i.user === user);
  if (!invitation) throw new NotFoundError(`${user} has no pending invitation to ${projectId}.`);
  if (invitation.role !== role) throw new ConflictError(`The invitation to ${projectId} offers the role ${invitation.role} now, not ${role}: read it again, then accept it as it is.`);
  const member = { user, role: invitation.role };
  const members = [...(spec.members ?? []).filter((m) => m.user !== user), member];
  return { spec: withoutInvitation({ ...spec, members }, projectId, user, now), member };
}
