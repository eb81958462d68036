import { MAX_PENDING_INVITATIONS, type ProjectInvitation, type ProjectMember, type ProjectSpec } from '../../src/apis/v1alpha1/project.ts';
import { ConflictError, NotFoundError } from '../../src/errors.ts';

/** How long an invitation waits to be accepted, as GitHub's do: after that it lapses and is dropped at the next change. */
export const INVITATION_LIFETIME_MS = 7 * 24 * 60 * 60 * 1000;

export function invitationExpiry(invitation: ProjectInvitation): Date {
  return new Date(Date.parse(invitation.invitedAt) + INVITATION_LIFETIME_MS);
}

/** The invitations of `spec` that have not lapsed at `now` (one with an unreadable time counts as lapsed). */
export function pendingInvitations(spec: ProjectSpec, now: number): ProjectInvitation[] {
  return (spec.invitations ?? []).filter((invitation) => invitationExpiry(invitation).getTime() > now);
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
 * `spec` with `user`'s invitation turned into a membership with its role. Someone who became a member meanwhile
 * (an administrator added them) keeps the role they have. @throws NotFoundError when they have no pending invitation.
 */
export function withInvitationAccepted(spec: ProjectSpec, projectId: string, user: string, now: number): { spec: ProjectSpec; member: ProjectMember } {
  const invitation = pendingInvitations(spec, now).find((i) => i.user === user);
  if (!invitation) throw new NotFoundError(`${user} has no pending invitation to ${projectId}.`);
  const members = spec.members ?? [];
  const member = members.find((m) => m.user === user) ?? { user, role: invitation.role };
  const rest = withoutInvitation(spec, projectId, user, now);
  return { spec: { ...rest, members: members.some((m) => m.user === user) ? members : [...members, member] }, member };
}
