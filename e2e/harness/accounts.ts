import { randomBytes } from 'node:crypto';
import { expect } from 'vitest';
import type { Project } from '../../src/apis/v1alpha1/project.ts';
import type { User } from '../../src/apis/v1alpha1/user.ts';
import { issueToken, SCOPE_NAMES, type Scope } from '../../src/auth/index.ts';
import { loadKubeConnection, objectClient, type KubeObject } from '../../src/kube/index.ts';
import { projectNamespace } from '../../operator/controllers/project/project-namespace.ts';
import { NAMESPACES, PROJECTS, USERS } from '../../src/platform/resources.ts';
import { KubeTokenStore } from '../../api/stores/index.ts';

/** An ordinary user who owns one project, with a token carrying every scope but `admin`. */
export interface MemberAccount {
  user: string;
  project: string;
  token: string;
  /** The token's id (`tok-…`), as `GET /v1/tokens` lists it. */
  tokenId: string;
}

/** Every scope an ordinary member may hold. */
export const MEMBER_SCOPES: readonly Scope[] = SCOPE_NAMES.filter((s): s is Scope => s !== 'admin');

const APPLY = { fieldManager: 'cloudwright-test', force: true };

/**
 * Creates a user and a project they own under fresh names, and mints them a token, the way
 * scripts/dev-bootstrap.ts sets up `make dev`'s member (CW_TOKEN): other projects answer 403 for it.
 * Fresh names let several tests share one control plane.
 */
export async function createMemberAccount(kubeconfig: string, prefix = 'member'): Promise<MemberAccount> {
  const { user, token, tokenId } = await createUserAccount(kubeconfig, prefix);
  const project = await createOwnedProject(kubeconfig, user, `${prefix}-project`);
  return { user, project, token, tokenId };
}

/**
 * `visitor` made a member of `owner`'s project through the API at `apiUrl`, as people are: the owner invites them
 * (202), and they accept the member role (200).
 */
export async function inviteAndAccept(apiUrl: string, owner: Pick<MemberAccount, 'project' | 'token'>, visitor: Pick<MemberAccount, 'user' | 'token'>): Promise<void> {
  const as = (token: string) => ({ authorization: `Bearer ${token}`, 'content-type': 'application/json' });
  const body = JSON.stringify({ role: 'member' });
  const invited = await fetch(`${apiUrl}/v1/projects/${owner.project}/members/${visitor.user}`, { method: 'PUT', headers: as(owner.token), body });
  expect(invited.status, await invited.text()).toBe(202);
  const accepted = await fetch(`${apiUrl}/v1/user/invitations/${owner.project}/accept`, { method: 'POST', headers: as(visitor.token), body });
  expect(accepted.status, await accepted.text()).toBe(200);
}

/** A user of no project yet, under a fresh name, with a token carrying every member scope. */
export async function createUserAccount(kubeconfig: string, prefix: string): Promise<Omit<MemberAccount, 'project'>> {
  const user = `${prefix}-user-${randomBytes(4).toString('hex')}`;
  await objectClient<User>(loadKubeConnection(kubeconfig), USERS).apply({ metadata: { name: user }, spec: { displayName: `Test ${prefix}`, admin: false } }, APPLY);
  const { token, tokenId } = await mintTestToken(kubeconfig, user, MEMBER_SCOPES, `test ${prefix}`);
  return { user, token, tokenId };
}

/** Creates a project named `<prefix>-<random>` owned by `user`; returns its id. */
export async function createOwnedProject(kubeconfig: string, user: string, prefix: string): Promise<string> {
  const project = `${prefix}-${randomBytes(4).toString('hex')}`;
  await objectClient<Project>(loadKubeConnection(kubeconfig), PROJECTS).apply({ metadata: { name: project }, spec: { displayName: `Test ${prefix}`, members: [{ user, role: 'owner' }] } }, APPLY);
  return project;
}

/**
 * Gives `project` its namespace the way the operator's Project controller does (labelled, owned by the
 * Project), for tests whose operator watches one namespace and so runs no Project controller.
 */
export async function createProjectNamespace(kubeconfig: string, project: string): Promise<void> {
  const kube = loadKubeConnection(kubeconfig);
  const owner = await objectClient<Project>(kube, PROJECTS).get('', project);
  if (!owner) throw new Error(`no Project ${project}`);
  await objectClient<KubeObject>(kube, NAMESPACES).create(projectNamespace(owner));
}

/** Mints a token for `user` straight into the cluster (no API involved). */
export async function mintTestToken(kubeconfig: string, user: string, scopes: readonly Scope[], description: string): Promise<{ token: string; tokenId: string }> {
  const store = new KubeTokenStore(loadKubeConnection(kubeconfig));
  await store.start(AbortSignal.timeout(30_000));
  try {
    const issued = await issueToken(user, { scopes: [...scopes], description }, store, new Date());
    return { token: issued.token, tokenId: issued.record.id };
  } finally {
    store.stop();
  }
}

/** Deletes every project `user` is a member of (what a test made through the API included); returns how many. */
export async function deleteProjectsOf(kubeconfig: string, user: string): Promise<number> {
  const projects = objectClient<Project>(loadKubeConnection(kubeconfig), PROJECTS);
  const { items } = await projects.list('');
  const theirs = items.filter((p) => p.spec.members?.some((m) => m.user === user));
  for (const project of theirs) await projects.delete('', project.metadata?.name ?? '');
  return theirs.length;
}
