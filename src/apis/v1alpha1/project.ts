import { Type, type Static } from 'typebox';
import type { CustomResource, KindDescriptor } from '../kind-descriptor.ts';
import { Conditions, ObservedGeneration } from './conditions.ts';
import { CATEGORY } from './group-version.ts';
import { DisplayName, DnsLabel, DnsSubdomain, Timestamp } from './strings.ts';

/**
 * The id of the audit entry of the API request that created the project (`api/audit`): its trail, as members read
 * it, starts there, so an earlier project of the same id (deleted, then created again by someone else) stays out
 * of it. Written by cw-api at creation; projects made otherwise start at their creation time.
 */
export const PROJECT_AUDIT_FROM_ANNOTATION = 'cloudwright.dev/audit-from';

/**
 * Who an object the API created is for (a user id), written by cw-api at creation and never changed by it, for what
 * is bounded per person rather than per project: on a Project (the owner it was created for), push-to-deploy's build
 * slots over every project of that user; on a ProjectDomain, the domains a person may have waiting for delegation.
 * An object made otherwise (kubectl, GitOps) names nobody and counts on its own.
 */
export const CREATED_BY_USER_ANNOTATION = 'cloudwright.dev/created-by-user';

/** A member's role: owners may manage membership, members use the project's resources. */
export const ProjectRole = Type.Union([Type.Literal('owner'), Type.Literal('member')], {
  description: 'owner (may manage members) or member.',
});
export type ProjectRole = Static<typeof ProjectRole>;

export const ProjectMember = Type.Object({
  user: DnsSubdomain({ description: 'Name of the User.' }),
  role: ProjectRole,
});
export type ProjectMember = Static<typeof ProjectMember>;

/**
 * Pending invitations a project keeps: each is a name someone else chose, so their number is bounded like the
 * project's other names.
 */
export const MAX_PENDING_INVITATIONS = 50;

/**
 * A membership offered and not yet accepted. An owner adding someone through the API invites them: the invitee
 * becomes a member only by accepting (`POST /v1/user/invitations/{projectId}/accept`), so nobody is put into a
 * project, or made its owner, without their consent. Written by cw-api only; a member declared in `members` (by an
 * administrator with kubectl or GitOps) needs none.
 */
export const ProjectInvitation = Type.Object({
  user: DnsSubdomain({ description: 'Name of the User invited.' }),
  role: ProjectRole,
  invitedBy: DnsSubdomain({ description: 'Name of the User who invited them.' }),
  invitedAt: Timestamp({ description: 'When they were invited; the invitation lapses 7 days later.' }),
});
export type ProjectInvitation = Static<typeof ProjectInvitation>;

export const ProjectSpec = Type.Object({
  displayName: DisplayName({ description: 'Human-readable name of the project.' }),
  members: Type.Optional(
    Type.Array(ProjectMember, {
      maxItems: 256,
      // Keyed by user: a user holds one role, and server-side apply merges members by user.
      'x-kubernetes-list-type': 'map',
      'x-kubernetes-list-map-keys': ['user'],
      description: 'Users with access to the project, one entry per user.',
    }),
  ),
  invitations: Type.Optional(
    Type.Array(ProjectInvitation, {
      maxItems: MAX_PENDING_INVITATIONS,
      'x-kubernetes-list-type': 'map',
      'x-kubernetes-list-map-keys': ['user'],
      description: 'Memberships offered through the API and not yet accepted, one entry per user (written by cw-api).',
    }),
  ),
});
export type ProjectSpec = Static<typeof ProjectSpec>;

export const ProjectStatus = Type.Object({
  namespace: Type.Optional(DnsLabel({ description: 'The namespace the project owns; its resources live there.' })),
  conditions: Type.Optional(Conditions),
  observedGeneration: Type.Optional(ObservedGeneration),
});
export type ProjectStatus = Static<typeof ProjectStatus>;

/** Condition types of a Project. */
export const ProjectConditions = {
  Ready: 'Ready',
  /** The namespace exists and is owned by this project (False: NamespaceConflict). */
  NamespaceReady: 'NamespaceReady',
} as const;

export type Project = CustomResource<'Project', ProjectSpec, ProjectStatus>;

/**
 * A tenant of the platform. Cluster-scoped: each project owns one namespace (reported in
 * `status.namespace`) holding its apps, databases, domains and repositories. The name is a DNS label
 * so it can be used as that namespace's name and inside host names.
 */
export const ProjectKind: KindDescriptor<'Project', typeof ProjectSpec, typeof ProjectStatus> = {
  kind: 'Project',
  plural: 'projects',
  singular: 'project',
  shortNames: ['cwproj'],
  scope: 'Cluster',
  categories: [CATEGORY],
  description: 'A Cloudwright project: a tenant that owns one namespace and the resources in it.',
  name: DnsLabel({ description: 'Project id.' }),
  spec: ProjectSpec,
  status: ProjectStatus,
  printerColumns: [
    { name: 'Display Name', type: 'string', jsonPath: '.spec.displayName', description: 'Human-readable name.' },
    { name: 'Owned Namespace', type: 'string', jsonPath: '.status.namespace', description: 'Namespace owned by the project.' },
  ],
};
