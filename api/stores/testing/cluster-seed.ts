// Test helper: writes a TokenStoreSeed as User and Project objects (what an operator or `kubectl apply`
// would do) and remembers them for cleanup.
import { vi } from 'vitest';
import type { AccessToken, Project, User } from '../../../src/apis/v1alpha1/index.ts';
import type { TokenStoreSeed } from '../../../src/auth/memory-token-store.ts';
import type { ProjectRole, TokenStore } from '../../../src/auth/ports.ts';
import { objectClient, type KubeConnection } from '../../../src/kube/index.ts';
import { ACCESS_TOKENS, PROJECTS, USERS } from '../../../src/platform/resources.ts';

/** Creates users and projects, remembers every name, and deletes them (and their users' tokens) on `cleanUp`. */
export function clusterSeeder(conn: KubeConnection) {
  const users = objectClient<User>(conn, USERS);
  const projects = objectClient<Project>(conn, PROJECTS);
  const tokens = objectClient<AccessToken>(conn, ACCESS_TOKENS);
  const made = { users: new Set<string>(), projects: new Set<string>() };

  return {
    users,
    projects,
    tokens,
    async createUser(id: string, admin = false): Promise<void> {
      made.users.add(id);
      await users.create({ metadata: { name: id }, spec: { admin } });
    },
    async createProject(id: string, members: Readonly<Record<string, ProjectRole>>): Promise<void> {
      made.projects.add(id);
      await projects.create({
        metadata: { name: id },
        spec: { displayName: id, members: Object.entries(members).map(([user, role]) => ({ user, role })) },
      });
    },
    /** Writes the seed, then waits until `store` reads all of it (its caches fill through watches). */
    async seed(store: TokenStore, seed: TokenStoreSeed): Promise<void> {
      const memberships = Object.entries(seed.memberships ?? {});
      await Promise.all([...(seed.users ?? []).map((user) => this.createUser(user.id, user.admin)), ...memberships.map(([project, members]) => this.createProject(project, members))]);
      await vi.waitFor(
        async () => {
          for (const user of seed.users ?? []) if (!(await store.getUser(user.id))) throw new Error(`${user.id} not seen yet`);
          for (const [project, members] of memberships) {
            for (const [user, role] of Object.entries(members)) {
              if ((await store.getMembership(project, user)) !== role) throw new Error(`${project} not seen yet`);
            }
          }
        },
        { timeout: 10_000, interval: 20 },
      );
    },
    async cleanUp(): Promise<void> {
      const { items } = await tokens.list('');
      const owned = items.filter((token) => made.users.has(token.spec.user));
      await Promise.all([
        ...owned.map((token) => tokens.delete('', token.metadata?.name ?? '')),
        ...[...made.users].map((name) => users.delete('', name)),
        ...[...made.projects].map((name) => projects.delete('', name)),
      ]);
    },
  };
}
