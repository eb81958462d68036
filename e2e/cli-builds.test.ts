// `cw apps connect | source | disconnect` and `cw builds ls | logs | cancel` end to end: the real command-line tool
// (cli/dist) against a real cw-api child process, the test control plane and the run's bucket. No operator runs:
// the SourceBuilds, their statuses and logs are written here as the AppSource and SourceBuild controllers would,
// so what `cw` shows is checked against what the platform holds.
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { AppSource } from '../src/apis/v1alpha1/app-source.ts';
import type { Repository } from '../src/apis/v1alpha1/repository.ts';
import type { SourceBuild } from '../src/apis/v1alpha1/source-build.ts';
import { loadKubeConnection, objectClient } from '../src/kube/index.ts';
import { S3ObjectStore } from '../src/object-store/s3-object-store.ts';
import { APP_SOURCES, REPOSITORIES, SOURCE_BUILDS } from '../src/platform/resources.ts';
import { BuildLogWriter } from '../src/platform/source-builds/build-log.ts';
import { createMemberAccount, createProjectNamespace, type MemberAccount } from './harness/accounts.ts';
import { startApiServer, type ApiServer } from './harness/api-server.ts';
import { cw, cwJson, type CwUser, expectOneLineError, newCwUser, startCw } from './harness/cli.ts';
import { s3Env } from './harness/runtime-stack.ts';

const kubeconfig = inject('kubeconfig');
const kube = loadKubeConnection(kubeconfig);
const builds = objectClient<SourceBuild>(kube, SOURCE_BUILDS);
const bucket = new S3ObjectStore({ config: inject('s3'), bucket: inject('bucket') });
let api: ApiServer | undefined;
let member: MemberAccount;
let user: CwUser;

beforeAll(async () => {
  member = await createMemberAccount(kubeconfig, 'cli-builds');
  await createProjectNamespace(kubeconfig, member.project);
  await objectClient<Repository>(kube, REPOSITORIES).create({ metadata: { name: 'site', namespace: member.project }, spec: { owner: member.project, name: 'site' } });
  api = await startApiServer({ kubeconfig, stateDir: inject('stateDir'), env: s3Env() });
  user = newCwUser(api.url, { CW_TOKEN: member.token, CW_PROJECT: member.project });
  const created = await cw(user, ['apps', 'create', 'web']);
  expect(created.code, created.stderr).toBe(0);
}, 120_000);

afterAll(async () => {
  await api?.stop();
});

const P = '/v1/projects/{projectId}/apps/{appId}';
const repo = () => `${member.project}/site`;

/** A SourceBuild as the AppSource controller makes one, its status as the SourceBuild controller writes it. */
async function sourceBuild(branch: string, commit: string, status: SourceBuild['status']): Promise<string> {
  const name = `web-${commit.slice(0, 12)}`;
  await builds.create({ metadata: { name, namespace: member.project }, spec: { app: 'web', source: 'web', context: 'production', repository: 'shop/site', branch, commit } });
  if (status) await builds.patchStatus(member.project, name, { status });
  // cw-api reads its cache: wait until it shows the build as written.
  await expect.poll(async () => (await cw(user, ['builds', 'ls', 'web', '--json'])).stdout, { timeout: 10_000, interval: 100 }).toContain(`"state": "${status?.state?.toLowerCase() ?? 'queued'}"`);
  return name;
}

describe('cw and push to deploy', () => {
  it('connects an app, shows the connection, and disconnects it', async () => {
    const connected = await cw(user, [
      'apps',
      'connect',
      'web',
      '--repo',
      repo(),
      '--branch',
      'release',
      '--preview-branches',
      'feature/*, fix/*',
      '--build-command',
      'npm ci && npm run build',
      '--output-dir',
      'dist',
      '--preview-databases',
      'fork',
    ]);
    expect(connected.code, connected.stderr).toBe(0);
    expect(connected.stdout).toContain(`Connected app web to ${repo()}: pushes to release deploy it`);
    const stored = await objectClient<AppSource>(kube, APP_SOURCES).get(member.project, 'web');
    expect(stored?.spec).toMatchObject({
      repository: { owner: member.project, name: 'site' },
      productionBranch: 'release',
      previewBranches: ['feature/*', 'fix/*'],
      build: { command: 'npm ci && npm run build', outputDirectory: 'dist' },
      previewDatabases: 'Fork',
    });

    const shown = await cw(user, ['apps', 'source', 'web']);
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.stdout).toContain(repo());
    expect(shown.stdout).toMatch(/Preview branches:\s+feature\/\*, fix\/\*/);
    expect(shown.stdout).toMatch(/Preview databases:\s+a copy of each linked database per preview/);
    const json = await cwJson<{ source: { state: string } }>(user, ['apps', 'source', 'web'], { method: 'GET', path: `${P}/source` });
    expect(json.source.state).toBe('pending');
    expect((await cwJson<{ app: { source?: string } }>(user, ['apps', 'get', 'web'], { method: 'GET', path: P })).app.source).toBe(repo());

    // Run again: the settings not given go back to their defaults.
    expect((await cw(user, ['apps', 'connect', 'web', '--repo', repo(), '--no-previews'])).code).toBe(0);
    expect((await objectClient<AppSource>(kube, APP_SOURCES).get(member.project, 'web'))?.spec).toMatchObject({ productionBranch: 'main', previewBranches: [], previewDatabases: 'None' });

    expectOneLineError(await cw(user, ['apps', 'connect', 'web', '--repo', `${member.project}/nothing`]), 1, /no repository/);
    expectOneLineError(await cw(user, ['apps', 'connect', 'web', '--repo', repo(), '--no-previews', '--preview-branches', 'x']), 2, /--preview-branches or --no-previews/);
    expectOneLineError(await cw(user, ['apps', 'connect', 'web']), 2, /--repo/);
    expectOneLineError(
      await cw(user, ['apps', 'connect', 'web', '--repo', repo(), '--preview-databases', 'copy']),
      2,
      /--preview-databases <none\|fork>' argument 'copy' is invalid\. expected one of none, fork/,
    );
    expectOneLineError(await cw(user, ['apps', 'source', 'nope']), 1, /no app nope/);

    expect((await cw(user, ['apps', 'disconnect', 'web', '--yes'])).code).toBe(0);
    expect(await objectClient<AppSource>(kube, APP_SOURCES).get(member.project, 'web')).toBeUndefined();
    expectOneLineError(await cw(user, ['apps', 'source', 'web']), 1, /not connected to a repository/);
    expect((await cw(user, ['apps', 'connect', 'web', '--repo', repo()])).code).toBe(0);
  });

  it('lists builds, prints a log, follows one to its failure, and cancels', async () => {
    const done = await sourceBuild('main', '1'.repeat(40), { state: 'Succeeded', buildId: 'b-0123456789abcdef', commitMessage: 'First page' });
    const doneLog = new BuildLogWriter(bucket, member.project, done);
    doneLog.write('$ npm ci\nadded 1 package\n');
    await doneLog.finish({ state: 'Succeeded' });

    const listed = await cw(user, ['builds', 'ls', 'web']);
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stdout).toMatch(new RegExp(`${done}\\s+web\\s+main\\s+111111111111\\s+succeeded`));
    const page = await cwJson<{ builds: { source_build_id: string }[] }>(user, ['builds', 'ls', 'web', '--branch', 'main'], { method: 'GET', path: `${P}/source-builds` });
    expect(page.builds.map((b) => b.source_build_id)).toContain(done);
    expect((await cwJson<{ builds: unknown[] }>(user, ['builds', 'ls', 'web', '--branch', 'other'], { method: 'GET', path: `${P}/source-builds` })).builds).toEqual([]);

    // `--app` keeps listing the uploaded builds (none here), as before push to deploy.
    expect((await cwJson<{ builds: unknown[] }>(user, ['builds', 'ls', '--app', 'web'], { method: 'GET', path: `${P}/builds` })).builds).toEqual([]);
    expectOneLineError(await cw(user, ['builds', 'ls', '--app', 'web', '--branch', 'main']), 2, /give the app as an argument/);

    const printed = await cw(user, ['builds', 'logs', 'web', done]);
    expect([printed.code, printed.stdout]).toEqual([0, '$ npm ci\nadded 1 package\n']);

    // Followed: each part as the build writes it, then exit 1 with the reason once it fails.
    const failing = await sourceBuild('main', '2'.repeat(40), { state: 'Building' });
    const log = new BuildLogWriter(bucket, member.project, failing);
    const follow = startCw(user, ['builds', 'logs', 'web', failing, '--follow']);
    log.write('> next build\n');
    await follow.waitFor(/> next build/, 5_000);
    log.write('Error: Cannot find module "react"\n');
    await follow.waitFor(/Cannot find module/, 5_000);
    await log.finish({ state: 'Failed', message: 'npm run build exited with 1.' });
    const result = await follow.done;
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('> next build\nError: Cannot find module "react"\n');
    expect(result.stderr.trim()).toBe(`error: build ${failing} failed: npm run build exited with 1.`);

    const queued = await sourceBuild('main', '3'.repeat(40), undefined);
    // A build that has written nothing yet: an empty log, printed as nothing (the API answers Content-Length 0).
    const empty = await cw(user, ['builds', 'logs', 'web', queued]);
    expect([empty.code, empty.stdout, empty.stderr]).toEqual([0, '', '']);
    const cancelled = await cw(user, ['builds', 'cancel', 'web', queued]);
    expect(cancelled.code, cancelled.stderr).toBe(0);
    expect((await builds.get(member.project, queued))?.spec.cancelled).toBe(true);
    expectOneLineError(await cw(user, ['builds', 'cancel', 'web', done]), 1, /already finished \(succeeded\)/);
    expectOneLineError(await cw(user, ['builds', 'logs', 'web', 'web-000000000000']), 1, /no source build web-000000000000/);
  });
});
