// The accounts `make dev` hands to its user: an ordinary member of one project (CW_TOKEN, all scopes but
// `admin`, so other projects answer 403) and an administrator (CW_ADMIN_TOKEN), with passwords for signing in
// as a person (CW_DEV_PASSWORD, CW_ADMIN_PASSWORD). Tokens and passwords are made afresh on every start; the
// previous run's tokens are revoked, so a stale .dev/env never keeps working.
import { randomBytes } from 'node:crypto';
import { issueToken, SCOPE_NAMES, type Scope } from '../src/auth/index.ts';
import { hashPassword } from '../src/auth/passwords.ts';
import { KubePasswordStore } from '../api/stores/kube-password-store.ts';
import type { Project } from '../src/apis/v1alpha1/project.ts';
import type { User } from '../src/apis/v1alpha1/user.ts';
import { setTimeout } from 'node:timers/promises';
import { loadKubeConnection, objectClient, RESOURCE_QUOTAS } from '../src/kube/index.ts';
import { PROJECT_QUOTA_NAME, quotaCounted, type ResourceQuota } from '../src/platform/project-quota.ts';
import { PROJECTS, USERS } from '../src/platform/resources.ts';
import { KubeTokenStore } from '../api/stores/index.ts';

const DESCRIPTION = 'make dev bootstrap';
export const DEV_PROJECT = 'dev';

export interface DevAccounts {
  project: string;
  memberToken: string;
  adminToken: string;
  memberPassword: string;
  adminPassword: string;
}

export async function bootstrapAccounts(kubeconfig: string): Promise<DevAccounts> {
  const kube = loadKubeConnection(kubeconfig);
  const apply = { fieldManager: 'cloudwright-dev', force: true };
  await objectClient<User>(kube, USERS).apply({ metadata: { name: 'developer' }, spec: { displayName: 'Developer', admin: false } }, apply);
  await objectClient<User>(kube, USERS).apply({ metadata: { name: 'admin' }, spec: { displayName: 'Administrator', admin: true } }, apply);
  await objectClient<Project>(kube, PROJECTS).apply({ metadata: { name: DEV_PROJECT }, spec: { displayName: 'Development', members: [{ user: 'developer', role: 'owner' }] } }, apply);

  const store = new KubeTokenStore(kube);
  await store.start(AbortSignal.timeout(30_000));
  try {
    for (const user of ['developer', 'admin']) {
      for (const token of await store.listTokens(user)) {
        if (token.description === DESCRIPTION && !token.revoked) await store.revokeToken(token.id);
      }
    }
    const now = new Date();
    const everyScope = SCOPE_NAMES.filter((s): s is Scope => s !== 'admin');
    const member = await issueToken('developer', { scopes: everyScope, description: DESCRIPTION }, store, now);
    const admin = await issueToken('admin', { scopes: [...SCOPE_NAMES], description: DESCRIPTION }, store, now);
    const passwords = new KubePasswordStore(kube);
    const [memberPassword, adminPassword] = [randomBytes(18).toString('base64url'), randomBytes(18).toString('base64url')];
    await passwords.setPasswordHash('developer', await hashPassword(memberPassword), (await store.getUser('developer'))?.uid);
    await passwords.setPasswordHash('admin', await hashPassword(adminPassword), (await store.getUser('admin'))?.uid);
    return { project: DEV_PROJECT, memberToken: member.token, adminToken: admin.token, memberPassword, adminPassword };
  } finally {
    store.stop();
  }
}

/**
 * Waits until kube-controller-manager has counted the project's quota (the operator writes it with the project's
 * namespace), at most `timeoutMs`; answers whether it has. Until then every create in the project answers 503 to
 * retry, about half a minute after a fresh control plane starts: a newcomer's first `POST …/apps` met that.
 */
export async function projectQuotaCounted(kubeconfig: string, project: string, timeoutMs: number): Promise<boolean> {
  const quotas = objectClient<ResourceQuota>(loadKubeConnection(kubeconfig), RESOURCE_QUOTAS);
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (quotaCounted(await quotas.get(project, PROJECT_QUOTA_NAME).catch(() => undefined))) return true;
    await setTimeout(250);
  }
  return false;
}
