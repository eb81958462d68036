// `cw apps history` end to end: the real command-line tool (cli/dist) against a real cw-api child process and
// the test control plane. No operator runs: the test writes status.history as the RuntimeApp controller would.
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { RuntimeApp } from '../src/apis/v1alpha1/runtime-app.ts';
import { loadKubeConnection, objectClient } from '../src/kube/index.ts';
import { RUNTIME_APPS } from '../src/platform/resources.ts';
import { createMemberAccount, createProjectNamespace, type MemberAccount } from './harness/accounts.ts';
import { startApiServer, type ApiServer } from './harness/api-server.ts';
import { cw, type CwUser, newCwUser } from './harness/cli.ts';

const kubeconfig = inject('kubeconfig');
const apps = objectClient<RuntimeApp>(loadKubeConnection(kubeconfig), RUNTIME_APPS);
let api: ApiServer | undefined;
let member: MemberAccount;
let user: CwUser;

beforeAll(async () => {
  member = await createMemberAccount(kubeconfig, 'cli-history');
  await createProjectNamespace(kubeconfig, member.project);
  api = await startApiServer({ kubeconfig, stateDir: inject('stateDir') });
  user = newCwUser(api.url, { CW_TOKEN: member.token, CW_PROJECT: member.project });
  const created = await cw(user, ['apps', 'create', 'web']);
  expect(created.code, created.stderr).toBe(0);
}, 120_000);

afterAll(async () => {
  await api?.stop();
});

describe('cw apps history', () => {
  it('says nothing was activated yet, then lists the history newest first, as a table and as JSON', async () => {
    const empty = await cw(user, ['apps', 'history', 'web']);
    expect(empty.code, empty.stderr).toBe(0);
    expect(empty.stdout).toContain('No build of web was activated yet');

    const app = await apps.get(member.project, 'web');
    await apps.replace({ ...app!, spec: { ...app!.spec, activeBuildId: 'b-2' } });
    const history = [
      {
        buildId: 'b-2',
        activatedAt: '2026-11-29T14:20:00Z',
        servedAt: '2026-11-29T14:20:03.5Z',
        by: 'push:acme/web@0123456789ab',
        commit: '0123456789ab',
        steps: [
          { weight: 10, at: '2026-11-29T14:20:01Z' },
          { weight: 100, at: '2026-11-29T14:20:03Z' },
        ],
      },
      { buildId: 'b-1', activatedAt: '2026-11-29T14:00:00Z', by: 'user:ann', abortedAt: '2026-11-29T14:05:00Z' },
    ];
    await apps.patchStatus(member.project, 'web', { status: { history } });

    const json = await cw(user, ['apps', 'history', 'web', '--json']);
    expect(json.code, json.stderr).toBe(0);
    expect(JSON.parse(json.stdout).deployments).toEqual([
      expect.objectContaining({ build_id: 'b-2', kind: 'deploy', seconds_to_serve: 3.5, by: 'push:acme/web@0123456789ab', commit: '0123456789ab', active: true }),
      expect.objectContaining({ build_id: 'b-1', by: 'user:ann', aborted_at: '2026-11-29T14:05:00Z', active: false }),
    ]);
    const table = await cw(user, ['apps', 'history', 'web']);
    expect(table.code, table.stderr).toBe(0);
    const lines = table.stdout.trim().split('\n');
    expect(lines[0]).toMatch(/BUILD\s+KIND\s+ACTIVATED\s+BY\s+SERVED IN\s+ROLLOUT/);
    expect(lines[1]).toMatch(/b-2 \(active\)\s+deploy\s+.*push:acme\/web@0123456789ab\s+3\.5 s\s+10 % → 100 %/);
    expect(lines[2]).toMatch(/b-1\s+deploy\s+.*user:ann\s+aborted/);
  });
});
