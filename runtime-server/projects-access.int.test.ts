import { KubeConfig } from '@kubernetes/client-node';
import { describe, expect, inject, it, vi } from 'vitest';
import { connectionFor, createInformer } from '../src/kube/index.ts';
import { createLogger } from '../src/logging/log.ts';
import { PROJECTS } from '../src/platform/resources.ts';
import { projectsAccessLog } from './projects-access.ts';

/** The test's admin connection acting as a user no RBAC names: as cw-runtime whose ClusterRole lacks `projects`. */
function withoutRbac() {
  const admin = new KubeConfig();
  admin.loadFromFile(inject('kubeconfig'));
  const config = new KubeConfig();
  config.loadFromOptions({
    clusters: admin.clusters,
    users: admin.users.map((u) => ({ ...u, impersonateUser: 'cw-runtime-without-projects' })),
    contexts: admin.contexts,
    currentContext: admin.currentContext,
  });
  return connectionFor(config);
}

describe('a runtime that may not list Projects', () => {
  it('warns once of the apiserver’s refusal and what it means, and retries quietly', async () => {
    const lines: Record<string, unknown>[] = [];
    const access = projectsAccessLog(createLogger({ level: 'debug', write: (line) => lines.push(JSON.parse(line) as Record<string, unknown>) }));
    const projects = createInformer(withoutRbac(), PROJECTS, { backoff: { initialMs: 20, maxMs: 50 }, onError: access.onError });
    projects.start();
    try {
      await vi.waitFor(() => expect(lines.length).toBeGreaterThanOrEqual(4), { timeout: 10_000 });
    } finally {
      projects.stop();
    }
    const [first, ...rest] = lines;
    expect(first).toMatchObject({ level: 'warn', msg: expect.stringMatching(/^may not list and watch Projects/), resource: 'projects', phase: 'list-watch' });
    expect(rest.map((l) => `${String(l.level)} ${String(l.msg)}`)).toEqual(rest.map(() => 'debug still may not list Projects'));
    expect(projects.hasSynced()).toBe(false);
  });
});
