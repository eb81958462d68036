import { PROJECT_AUDIT_FROM_ANNOTATION, CREATED_BY_USER_ANNOTATION, type Project, type ProjectMember, type ProjectRole, type ProjectSpec } from '../../src/apis/v1alpha1/project.ts';
import { pendingInvitations, withInvitation, withInvitationAccepted, withInvitations, withoutInvitation } from './project-invitations.ts';
import { timeOfEntryId } from '../audit/audit-entry.ts';
import { settle } from '../../src/platform/settle.ts';
import { KeyedMutex } from '../../src/collections/keyed-mutex.ts';
import type { Principal } from '../../src/auth/index.ts';
import { isAlreadyExists, objectClient, retryOnConflict, type Informer, type KubeConnection, type KubeObject, type ResourceRef } from '../../src/kube/index.ts';
import { RecentMap } from '../../src/collections/recent-map.ts';
import { InformerIndex } from '../../src/kube/informer-index.ts';
import { projectView, type ProjectView } from './project-view.ts';
import { invitationView, type InvitationView } from './invitation-view.ts';
import { NAMESPACES, PROJECT_CONTENTS, PROJECTS } from '../../src/platform/resources.ts';
import { ConflictError, NotFoundError, BadRequestError } from '../../src/errors.ts';
import { refuseDeleteOfApplied, refuseEntriesAppliedElsewhere } from '../../src/platform/applied-elsewhere.ts';

/** What a project holds, as the API calls it (its resources' kinds are not the caller's words). */
const CONTENT_NOUNS: Readonly<Record<string, readonly [string, string]>> = {
  runtimeapps: ['app', 'apps'],
  databases: ['database', 'databases'],
  projectdomains: ['domain', 'domains'],
  repositories: ['repository', 'repositories'],
};

type ProjectContent = KubeObject & { spec?: { deleted?: boolean; domain?: string } };

/** `2 apps (web, shop)`: how many, and the first few by the names the caller knows them by. */
function describeContents(resource: ResourceRef, items: readonly ProjectContent[]): string {
  const [one, many] = CONTENT_NOUNS[resource.plural] ?? [resource.kind, resource.plural];
  const names = items.slice(0, 5).map((item) => item.spec?.domain ?? item.metadata?.name ?? '?');
  return `${items.length} ${items.length === 1 ? one : many} (${names.join(', ')}${items.length > 5 ? ', …' : ''})`;
}

/**
 * Invitations one person may have waiting, over every project: anyone may invite any id, so without it a few accounts
 * could bury someone's list (and each list is read whole).
 */
export const MAX_INVITATIONS_PER_PERSON = 100;

/** Namespaces a project may not take: its namespace carries the project's id. */
const RESERVED = /^(default|kube-.*|cloudwright|cloudwright-.*|openshift.*)$/;

/**
 * Projects one user may own: each is a namespace and the home of apps, domains and zones, and any
 * authenticated user may create one. Checked against the cache, so concurrent creates may pass it by a few.
 */
export const MAX_PROJECTS_PER_OWNER = 50;

/**
 * Whether a project counts against `user`'s limit: the projects they created through the API, not those others made
 * them an owner of (a hostile run had 47 projects made and handed over, which locked their new owner out of creating
 * any and took its maker past the limit). One made otherwise (kubectl, or before the API recorded its maker) counts
 * against its owners.
 */
function countsAgainst(project: Project, user: string): boolean {
  const maker = project.metadata?.annotations?.[CREATED_BY_USER_ANNOTATION];
  if (maker !== undefined) return maker === user;
  return project.spec.members?.some((m) => m.user === user && m.role === 'owner') ?? false;
}

/** A project made before cw-api recorded its creating entry: its own entry was written up to this long before it (Kubernetes keeps creation times to the second). */
const CREATION_MARGIN_MS = 10_000;

/**
 * Projects, read from an informer cache and written to the apiserver. Each write is conditional on the
 * resourceVersion it read, and retried on a conflict, so concurrent member changes never lose one another.
 */
export class ProjectDirectory {
  readonly #conn: KubeConnection;
  readonly #cache: Informer<Project>;
  readonly #platformIds: ReadonlySet<string>;
  readonly #creating = new KeyedMutex();
  /** Projects by the users they have invited (lapsed invitations too: they are filtered when read). */
  readonly #invited: InformerIndex<Project>;
  /** Listings by caller, each valid while no Project has changed since it was made. */
  readonly #listings = new RecentMap<{ readonly changes: number; readonly views: readonly ProjectView[] }>(10_000);

  /** `platformIds`: ids that would hold one of the platform's own host names (`platformProjectIds`), reserved too. */
  constructor(conn: KubeConnection, cache: Informer<Project>, platformIds: readonly string[] = []) {
    this.#conn = conn;
    this.#cache = cache;
    this.#platformIds = new Set(platformIds);
    this.#invited = new InformerIndex(cache, (project) => (project.spec.invitations ?? []).map((i) => i.user), cache.list());
  }

  /**
   * The caller's projects; administrators see every project. Sorted by id. Made once per caller and Project
   * change rather than per request: `GET /v1/projects` is the API's most frequent read (bench/README.md).
   * The list is shared: callers must not change it.
   */
  listFor(principal: Principal): readonly ProjectView[] {
    // Administrators see more than the same user's everyday token does, so they get a listing of their own.
    const key = principal.admin ? `admin/${principal.userId}` : principal.userId;
    const listing = this.#listings.get(key);
    const changes = this.#cache.changes();
    if (listing?.changes === changes) return listing.views;
    const views = this.#cache
      .list()
      .filter((p) => principal.admin || p.spec.members?.some((m) => m.user === principal.userId))
      .map((p) => projectView(p, principal.userId))
      .sort((a, b) => (a.project_id < b.project_id ? -1 : a.project_id > b.project_id ? 1 : 0));
    this.#listings.set(key, { changes, views });
    return views;
  }

  /** Only called after authorisation has established the caller may see it. */
  get(projectId: string, principal: Principal): ProjectView {
    const project = this.#cache.get(projectId);
    if (!project) throw new NotFoundError(`Project ${projectId} does not exist.`);
    return projectView(project, principal.userId);
  }

  /**
   * Where the project's trail starts for its members: its creating request's audit entry, or (made with kubectl, or
   * before cw-api recorded that) its creation time, less a margin for its own creating entry, written just before.
   */
  trailStart(projectId: string): Date | undefined {
    const project = this.#cache.get(projectId);
    if (!project) throw new NotFoundError(`Project ${projectId} does not exist.`);
    const from = project.metadata?.annotations?.[PROJECT_AUDIT_FROM_ANNOTATION];
    if (from) {
      try {
        return timeOfEntryId(from);
      } catch {
        // Not an entry id: as if it were not there.
      }
    }
    const created = Date.parse(project.metadata?.creationTimestamp ?? '');
    return Number.isNaN(created) ? undefined : new Date(created - CREATION_MARGIN_MS);
  }

  /**
   * `auditFrom`: the creating request's audit entry id ({@link PROJECT_AUDIT_FROM_ANNOTATION}). One user's creates
   * run one at a time, each counted after the one before is in the cache: 80 at once all passed the count of the
   * cache as it was, 76 of them created (found in review). With several API replicas each may let one through beside
   * the others', so a user can exceed the bound by the number of replicas less one, at most.
   */
  create(input: { projectId: string; name: string; owner: string; auditFrom?: string }): Promise<ProjectView> {
    return this.#creating.run(input.owner, () => this.#create(input));
  }

  async #create(input: { projectId: string; name: string; owner: string; auditFrom?: string }): Promise<ProjectView> {
    if (RESERVED.test(input.projectId)) throw new BadRequestError(`The project id ${input.projectId} is reserved; choose another.`);
    if (this.#platformIds.has(input.projectId))
      throw new BadRequestError(`The project id ${input.projectId} is reserved: its part of the base domain holds one of the platform's own host names; choose another.`);
    // As this replica sees it (the audit trail did not open the creating entry then): a project deleted a moment
    // ago and not yet gone from the cache would otherwise be created with no entry to start its trail at.
    if (this.#cache.get(input.projectId)) throw new ConflictError(`A project with the id ${input.projectId} already exists.`);
    const owned = this.#cache.list().filter((p) => !p.metadata?.deletionTimestamp && countsAgainst(p, input.owner)).length;
    if (owned >= MAX_PROJECTS_PER_OWNER) {
      throw new ConflictError(`${input.owner} has created ${owned} projects, the most a user may (those handed over to others count too, until their owners delete them); delete one first.`);
    }
    // The project's namespace will carry its id. One that exists already belongs to something else (the
    // operator would never adopt it, and the project would stay NamespaceConflict): say so now.
    if (await objectClient<KubeObject>(this.#conn, NAMESPACES).get('', input.projectId)) {
      throw new ConflictError(`A namespace named ${input.projectId} already exists in the cluster; choose another project id.`);
    }
    try {
      const created = await this.#projects().create({
        metadata: {
          name: input.projectId,
          annotations: { [CREATED_BY_USER_ANNOTATION]: input.owner, ...(input.auditFrom ? { [PROJECT_AUDIT_FROM_ANNOTATION]: input.auditFrom } : {}) },
        },
        spec: { displayName: input.name, members: [{ user: input.owner, role: 'owner' }] },
      });
      await this.#cacheCaughtUp(created);
      return projectView(created, input.owner);
    } catch (err) {
      if (isAlreadyExists(err)) throw new ConflictError(`A project with the id ${input.projectId} already exists.`);
      throw err;
    }
  }

  /**
   * Deletes an empty project; the operator then deletes its namespace. A project that still holds apps,
   * databases, domains or repositories is refused with 409 listing them: deleting those is a decision the
   * caller makes one by one, not a side effect of removing a container. Soft-deleted domains, kept as
   * history, do not count; they go with the namespace.
   */
  async delete(projectId: string): Promise<void> {
    const project = this.#cache.get(projectId) ?? (await this.#projects().get('', projectId));
    if (!project) throw new NotFoundError(`Project ${projectId} does not exist.`);
    // The namespace is named after the project; look there even before the operator has reported it.
    const namespace = project.status?.namespace ?? projectId;
    {
      const live: string[] = [];
      for (const resource of PROJECT_CONTENTS) {
        const { items } = await objectClient<ProjectContent>(this.#conn, resource).list(namespace);
        // A soft-deleted domain is history, not content: its zone is gone (or its finalizer sees to it).
        const held = items.filter((item) => item.spec?.deleted !== true);
        if (held.length > 0) live.push(describeContents(resource, held));
      }
      if (live.length > 0) throw new ConflictError(`Project ${projectId} still has ${live.join(', ')}; delete them first.`);
    }
    await refuseDeleteOfApplied(this.#projects(), '', projectId, project.metadata?.uid);
    await this.#projects().delete('', projectId);
    await settle(this.#cache, projectId, (cached) => cached?.metadata?.uid !== project.metadata?.uid);
  }

  members(projectId: string): ProjectMember[] {
    const project = this.#cache.get(projectId);
    if (!project) throw new NotFoundError(`Project ${projectId} does not exist.`);
    return [...(project.spec.members ?? [])];
  }

  /**
   * An owner's add: anyone not a member is invited, and so is a member offered the owner role (they become a member,
   * or an owner, by accepting: nobody is put into a project, or left holding one, without consent: review-146 F2 and
   * review-159 F1); a member's role lowered, or kept, is changed at once. `direct` (an administrator's add) makes them
   * a member at once, as editing the Project with kubectl would.
   */
  async addMember(projectId: string, member: ProjectMember, by: { readonly userId: string; readonly direct: boolean }): Promise<{ member: ProjectMember } | { invitation: InvitationView }> {
    return this.#update<{ member: ProjectMember } | { invitation: InvitationView }>(projectId, (spec, now, project) => {
      const members = spec.members ?? [];
      const current = members.find((m) => m.user === member.user);
      if (by.direct || (current && (current.role === member.role || member.role === 'member'))) {
        const invitations = pendingInvitations(spec, now).filter((i) => i.user !== member.user);
        return { spec: withInvitations({ ...spec, members: [...members.filter((m) => m.user !== member.user), member] }, invitations), result: { member } };
      }
      const waiting = this.invitationsFor(member.user).filter((i) => i.project_id !== projectId).length;
      if (waiting >= MAX_INVITATIONS_PER_PERSON) {
        throw new ConflictError(`${member.user} has ${waiting} invitations waiting, the most a person may have; they must answer some first.`);
      }
      // An owner role offered to a member GitOps declares could never be accepted: refused now, as a change would be.
      if (current) refuseEntriesAppliedElsewhere(project, ['spec', 'members'], [{ user: member.user }]);
      const invitation = { ...member, invitedBy: by.userId, invitedAt: new Date(now).toISOString() };
      return { spec: withInvitation(spec, invitation, now), result: { invitation: invitationView(projectId, spec, invitation) } };
    });
  }

  /** Their offer of the owner role, if one is pending, goes with them: it would otherwise let them back in as owner. */
  async removeMember(projectId: string, userId: string): Promise<void> {
    await this.#update(projectId, (spec, now) => {
      const members = spec.members ?? [];
      if (!members.some((m) => m.user === userId)) throw new NotFoundError(`${userId} is not a member of ${projectId}.`);
      const invitations = pendingInvitations(spec, now).filter((i) => i.user !== userId);
      return { spec: withInvitations({ ...spec, members: members.filter((m) => m.user !== userId) }, invitations), result: undefined };
    });
  }

  /** The project's invitations that stand (not lapsed, their inviter still an owner), oldest first. */
  invitations(projectId: string): InvitationView[] {
    const project = this.#cache.get(projectId);
    if (!project) throw new NotFoundError(`Project ${projectId} does not exist.`);
    return pendingInvitations(project.spec, Date.now()).map((invitation) => invitationView(projectId, project.spec, invitation));
  }

  /** The invitations waiting for `userId`, by project id. */
  invitationsFor(userId: string): InvitationView[] {
    const now = Date.now();
    return this.#invited
      .keys(userId)
      .flatMap((key) => {
        const project = this.#cache.get(key);
        const invitation = project && pendingInvitations(project.spec, now).find((i) => i.user === userId);
        return project && invitation ? [invitationView(key, project.spec, invitation)] : [];
      })
      .sort((a, b) => (a.project_id < b.project_id ? -1 : a.project_id > b.project_id ? 1 : 0));
  }

  /** Withdrawn by an owner, or declined by the invitee. */
  async dropInvitation(projectId: string, userId: string): Promise<void> {
    await this.#update(projectId, (spec, now) => ({ spec: withoutInvitation(spec, projectId, userId, now), result: undefined }));
  }

  /** Whether `userId` has an invitation to `projectId` that stands (read from the cache). */
  hasInvitation(projectId: string, userId: string): boolean {
    const project = this.#cache.get(projectId);
    return project !== undefined && pendingInvitations(project.spec, Date.now()).some((i) => i.user === userId);
  }

  /** `role`: the role the invitee saw and accepts (a different one offered now is refused). */
  async acceptInvitation(projectId: string, userId: string, role: ProjectRole): Promise<ProjectMember> {
    return this.#update(projectId, (spec, now) => {
      const { spec: accepted, member } = withInvitationAccepted(spec, projectId, userId, role, now);
      return { spec: accepted, result: member };
    });
  }

  /**
   * Every invitation naming `userId` in `projects` (read from the apiserver by the caller) withdrawn: for a user being
   * deleted, so offers made to them do not wait for a later user of the id.
   */
  async dropInvitationsOf(userId: string, projects: readonly Project[]): Promise<void> {
    const now = Date.now();
    for (const project of projects) {
      if (!pendingInvitations(project.spec, now).some((i) => i.user === userId)) continue;
      const name = project.metadata?.name ?? '';
      // Gone meanwhile (the project, or the invitation): nothing to withdraw.
      await this.#update(name, (spec, at) => ({ spec: withoutInvitation(spec, name, userId, at), result: undefined })).catch((err: unknown) => {
        if (!(err instanceof NotFoundError)) throw err;
      });
    }
  }

  /**
   * A change of a project's spec, read from the apiserver and written conditionally, retried on a conflict; a project
   * keeps an owner, and a member declared by a GitOps tool stays its to change.
   */
  async #update<T>(projectId: string, change: (spec: ProjectSpec, now: number, project: Project) => { spec: ProjectSpec; result: T }): Promise<T> {
    let result: T | undefined;
    const updated = await retryOnConflict(async () => {
      const project = await this.#projects().get('', projectId);
      if (!project) throw new NotFoundError(`Project ${projectId} does not exist.`);
      const next = change(project.spec, Date.now(), project);
      result = next.result;
      const [before, after] = [project.spec.members ?? [], next.spec.members ?? []];
      if (!after.some((m) => m.role === 'owner')) throw new ConflictError(`Project ${projectId} must keep at least one owner.`);
      refuseEntriesAppliedElsewhere(project, ['spec', 'members'], changedMembers(before, after));
      return this.#projects().replace({ ...project, spec: next.spec });
    });
    await this.#cacheCaughtUp(updated);
    return result as T;
  }

  /**
   * Read-your-writes for this process: authorisation reads memberships from the cache, so a write is
   * answered only once the cache holds it (or a newer version), bounded so a stalled watch cannot hang the
   * request; the write itself is durable either way.
   */
  async #cacheCaughtUp(written: Project): Promise<void> {
    const name = written.metadata?.name ?? '';
    const wanted = written.metadata?.generation ?? 0;
    await settle(this.#cache, name, (cached) => {
      return cached?.metadata?.uid === written.metadata?.uid && (cached?.metadata?.generation ?? 0) >= wanted;
    });
  }

  #projects() {
    return objectClient<Project>(this.#conn, PROJECTS);
  }
}

/** The users whose membership `after` adds, removes or changes the role of. */
function changedMembers(before: readonly ProjectMember[], after: readonly ProjectMember[]): { user: string }[] {
  const roles = (members: readonly ProjectMember[]) => new Map(members.map((m) => [m.user, m.role]));
  const [was, is] = [roles(before), roles(after)];
  return [...new Set([...was.keys(), ...is.keys()])].filter((user) => was.get(user) !== is.get(user)).map((user) => ({ user }));
}
