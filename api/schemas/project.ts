import { Type } from 'typebox';
import { DISPLAY_TEXT_PATTERN, DISPLAY_TEXT_RULE } from './display-text.ts';
import { DNS_SUBDOMAIN_PATTERN } from '../../src/apis/v1alpha1/strings.ts';

// Response schemas avoid `anyOf` where a type list or an enum says the same: fast-json-stringify serialises
// those directly, while an `anyOf` costs a validation per value to pick the branch (measured: make bench).
const nullableString = (description: string) => Type.Unsafe<string | null>({ type: ['string', 'null'], description });
const roleSchema = (description: string) => Type.Unsafe<'owner' | 'member'>({ type: 'string', enum: ['owner', 'member'], description });

export const ProjectId = Type.String({
  minLength: 1,
  maxLength: 63,
  pattern: '^[a-z0-9]([-a-z0-9]*[a-z0-9])?$',
  description: 'Project id: lowercase letters, digits and dashes (a DNS label); also the name of its namespace.',
});

export const userIdSchema = (description: string) =>
  Type.String({
    minLength: 1,
    maxLength: 253,
    // As the User and Project.spec.members names are checked (labels of at most 63): an id the apiserver would refuse is a 400 here.
    pattern: DNS_SUBDOMAIN_PATTERN,
    description,
  });

export const UserId = userIdSchema('User id (a DNS subdomain: lowercase letters, digits, dashes and dots).');

export const ProjectParams = Type.Object({ projectId: ProjectId }, { additionalProperties: false });

export const ProjectBody = Type.Object(
  {
    project_id: ProjectId,
    name: Type.String({ minLength: 1, maxLength: 128, pattern: DISPLAY_TEXT_PATTERN, description: 'Display name (' + DISPLAY_TEXT_RULE + ').' }),
    owner: Type.Optional(userIdSchema('User id of the first owner; defaults to the caller (administrators only).')),
  },
  { additionalProperties: false },
);

export const Project = Type.Object(
  {
    project_id: ProjectId,
    name: Type.String({ description: 'Display name.' }),
    namespace: nullableString('Namespace holding the project’s resources; null until the operator has created it.'),
    ready: Type.Boolean({ description: 'The operator has set the project up.' }),
    created_at: Type.String({ format: 'date-time', description: 'ISO 8601 UTC timestamp.' }),
    role: Type.Optional(roleSchema('The caller’s role; absent for an administrator who is not a member.')),
    usage: Type.Optional(
      Type.Object(
        {
          active_builds_unpacked_bytes: Type.Integer({ description: 'Bytes the project’s apps’ active builds unpack to (their modules and assets).' }),
          stored_builds_bytes: Type.Integer({ description: 'Bytes the project’s stored builds take, compressed: every app’s, those kept for rollbacks included.' }),
        },
        { description: 'What the project uses of its quotas; in `GET /v1/projects/{projectId}` only.' },
      ),
    ),
    quotas: Type.Optional(
      Type.Object(
        {
          active_builds_unpacked_bytes: Type.Integer({
            description: 'The most the project’s apps’ active builds may unpack to together: a deploy or rollback past it is refused (409, or 413 for a build larger than the whole quota).',
          }),
          stored_builds_bytes: Type.Integer({
            description:
              'The most the project’s stored builds may take, compressed: past it the oldest builds no app serves or rolls out are deleted; an upload that would not fit beside those kept is refused (409, or 413 for a build larger than the whole quota).',
          }),
        },
        { description: 'The project’s quotas; in `GET /v1/projects/{projectId}` only.' },
      ),
    ),
  },
  { description: 'A project: a tenant owning apps, databases and domains.' },
);

export const Member = Type.Object(
  {
    user_id: Type.String({ description: 'User id.' }),
    role: roleSchema('The member’s role: owners manage members.'),
  },
  { description: 'A member of a project.' },
);

export const MemberParams = Type.Object({ projectId: ProjectId, userId: UserId }, { additionalProperties: false });
export const MemberBody = Type.Object({ role: Type.Union([Type.Literal('owner'), Type.Literal('member')]) }, { additionalProperties: false });

export const Invitation = Type.Object(
  {
    project_id: Type.String({ description: 'The project they are invited to.' }),
    project_name: Type.String({ description: 'Its display name.' }),
    user_id: Type.String({ description: 'The user invited.' }),
    role: roleSchema('The role they get by accepting.'),
    invited_by: Type.String({ description: 'The owner who invited them.' }),
    invited_at: Type.String({ format: 'date-time' }),
    expires_at: Type.String({ format: 'date-time', description: 'After this the invitation lapses (7 days after it was made or renewed).' }),
  },
  { description: 'A membership offered and not yet accepted: the invitee becomes a member only by accepting it.' },
);
