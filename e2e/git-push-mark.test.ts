// The push mark (issue 40's wake-up of push-to-deploy) with real parts: a MinIO of its own posting every manifest
// write to an events instance's `POST /_events/notify` (as make dev sets it up), cw-git with the Kubernetes
// repository directory against the real apiserver, and stock git pushing through a serving instance. A push raises
// the `cloudwright.dev/pushed-seq` annotation of the repository's Repository resource (in its project's namespace) to
// the head seq, measured from the push's end to the watch seeing it; an events instance down during a push raises
// it with its first sweep once started; the mark is never lowered, not even by a concurrent attempt with an older
// seq; a resource naming the repository from another project's namespace is never marked.
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { Registry } from 'prom-client';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { PUSHED_SEQ_ANNOTATION, type Repository } from '../src/apis/v1alpha1/repository.ts';
import { mintToken } from '../git-server/auth/index.ts';
import { PushedSeqMarker } from '../git-server/events/pushed-seq-marker.ts';
import { BucketRepositoryDirectory } from '../git-server/repositories/bucket-repository-directory.ts';
import { KubeRepositoryResources } from '../git-server/repositories/kube-repository-resources.ts';
import { repositoryResourceName } from '../git-server/repositories/resource-name.ts';
import type { RunningService } from '../git-server/serve.ts';
import { createInformer, loadKubeConnection, NAMESPACES, objectClient, waitFor, type Informer } from '../src/kube/index.ts';
import { S3ObjectStore } from '../src/object-store/s3-object-store.ts';
import { REPOSITORIES } from '../src/platform/resources.ts';
import { parseRepoPath, RepoStore } from '../src/repo-store/index.ts';
import { GitClient } from './harness/git-client.ts';
import { startGitService } from './harness/git-service.ts';
import { NotifiedGit } from './harness/notified-git.ts';

const suffix = randomBytes(4).toString('hex');
/** cw-git's own namespace (`kubernetes.namespace`), a project's (its name is the owner), and another project's. */
const ownNamespace = `e2e-mark-git-${suffix}`;
const project = `e2e-mark-${suffix}`;
const stranger = `e2e-mark-other-${suffix}`;
const repo = parseRepoPath(`${project}/site`);
const kubeconfig = inject('kubeconfig');
const kube = loadKubeConnection(kubeconfig);
const repositories = objectClient<Repository>(kube, REPOSITORIES);

/** MinIO posting manifest writes to an events-only instance; pushes go through a serving instance on the same bucket. */
let stack: NotifiedGit;
let serving: RunningService;
let token: string;
let store: S3ObjectStore;
let repos: RepoStore;
let git: GitClient;
let work: string;
let watch: Informer<Repository>;
const cleanups: (() => unknown)[] = [];

const resourceKey = `${project}/${repositoryResourceName(repo)}`;
const markOf = (r: Repository | undefined) => r?.metadata?.annotations?.[PUSHED_SEQ_ANNOTATION];

/** Commits a change and pushes it with stock git through the serving instance; answers when git started and ended. */
async function push(label: string): Promise<{ started: number; ended: number }> {
  await git.commit(work, label, { 'index.js': `export default { fetch: () => new Response(${JSON.stringify(label)}) };\n` });
  const started = performance.now();
  await git.run(['push', '-q', serving.url.replace('http://', `http://git:${token}@`) + `/${repo.full}`, 'main'], { cwd: work });
  return { started, ended: performance.now() };
}

/** When the watch first showed each mark of the project's resource (ms, `performance.now()`). */
const seenAt = new Map<string, number>();

/** Waits until the watch shows the mark at `seq`; answers when it first did. */
async function markSeen(seq: number, timeoutMs = 10_000): Promise<number> {
  const result = await waitFor(watch, resourceKey, (r) => markOf(r) === String(seq), timeoutMs);
  expect(markOf(result.object), `the mark of ${repo.full} within ${timeoutMs} ms`).toBe(String(seq));
  return seenAt.get(String(seq)) ?? performance.now();
}

beforeAll(async () => {
  for (const namespace of [ownNamespace, project, stranger]) {
    await objectClient(kube, NAMESPACES).create({ metadata: { name: namespace } });
    cleanups.push(() => objectClient(kube, NAMESPACES).delete('', namespace));
  }
  // A sweep at start only: a mark seen after a push came from MinIO's notification, unless the instance restarted.
  stack = await NotifiedGit.start({ stateDir: join(inject('stateDir'), `push-mark-${suffix}`), kubeconfig, namespace: ownNamespace, roles: ['events'], sweepInterval: '0' });
  cleanups.push(() => stack.stop());
  token = mintToken({ sub: 'ada', scopes: ['read', 'write'] }, stack.setup.tokenSecret);
  store = new S3ObjectStore({ config: stack.setup.s3, bucket: stack.setup.bucket, registry: new Registry() });
  cleanups.push(() => store.destroy());
  repos = new RepoStore({ store, registry: new Registry() });
  // The repository as the Kubernetes directory makes it for the project (no operator runs here: the bucket's side
  // is made directly), and a resource in another project's namespace naming it, which must never be marked.
  await repositories.create({ metadata: { name: repositoryResourceName(repo), namespace: project }, spec: { owner: repo.owner, name: repo.name } });
  await repositories.create({ metadata: { name: 'squatter', namespace: stranger }, spec: { owner: repo.owner, name: repo.name } });
  await new BucketRepositoryDirectory(repos).create(repo);
  [serving, git] = await Promise.all([startGitService({ ...stack.setup, roles: ['serve'] }), GitClient.create()]);
  cleanups.push(() => serving.stop());
  watch = createInformer<Repository>(kube, REPOSITORIES);
  watch.onChange((r) => {
    const mark = markOf(r);
    if (`${r.metadata?.namespace}/${r.metadata?.name}` === resourceKey && mark !== undefined && !seenAt.has(mark)) seenAt.set(mark, performance.now());
  });
  watch.start();
  cleanups.push(() => watch.stop());
  await watch.waitForSync();
  work = await git.workdir(`site-${suffix}`);
  await git.run(['init', '-q'], { cwd: work });
}, 120_000);

afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});

describe('the push mark', { timeout: 60_000 }, () => {
  it('is raised to the head seq on each push, within a fraction of a second of the push’s end', async () => {
    const latencies: { afterEnd: number; afterStart: number }[] = [];
    for (const label of ['first', 'second', 'third']) {
      const { started, ended } = await push(label);
      const { seq } = await repos.readHead(repo.full, { fresh: true });
      const seen = await markSeen(seq);
      // Negative after the end when the watch showed the mark before git had exited (the manifest, whose write MinIO
      // reports, is written before cw-git answers git).
      latencies.push({ afterEnd: seen - ended, afterStart: seen - started });
    }
    const { seq } = await repos.readHead(repo.full, { fresh: true });
    expect(seq).toBeGreaterThanOrEqual(3);
    const ms = (n: number) => `${n.toFixed(1)} ms`;
    console.log(`push → pushed-seq annotation seen: ${latencies.map((l) => `${ms(l.afterEnd)} after git push exited (${ms(l.afterStart)} after it started)`).join('; ')}`);
    for (const l of latencies) expect(l.afterEnd).toBeLessThan(1000);
    // The resource naming the repository from another project's namespace was never marked.
    expect(markOf(watch.get(`${stranger}/squatter`))).toBeUndefined();
    const metrics = await (await fetch(`${stack.notified?.url}/metrics`, { headers: { authorization: `Bearer ${token}` } })).text();
    const raised = /^events_pushed_seq_marks_total\{outcome="raised"\} (\d+)$/m.exec(metrics);
    expect(Number(raised?.[1])).toBeGreaterThanOrEqual(3);
  });

  it('is raised by the first sweep of an events instance that was down during the push', async () => {
    const before = markOf(await repositories.get(project, repositoryResourceName(repo)));
    await stack.stopNotified();
    await push('while down');
    const { seq } = await repos.readHead(repo.full, { fresh: true });
    expect(seq).toBeGreaterThan(Number(before));
    // MinIO's notification found nobody listening and was dropped (no queue directory).
    expect(markOf(await repositories.get(project, repositoryResourceName(repo)))).toBe(before);
    await stack.startNotified();
    await markSeen(seq);
    expect(markOf(watch.get(`${stranger}/squatter`))).toBeUndefined();
  });

  it('is never lowered: an attempt with an older seq, alone or racing the head’s, leaves the head', async () => {
    const { seq } = await repos.readHead(repo.full, { fresh: true });
    await markSeen(seq);
    const marker = new PushedSeqMarker(new KubeRepositoryResources(repositories, ownNamespace));
    expect(await marker.raise(repo, seq - 1)).toBe('current');
    expect(await marker.raise(repo, 0)).toBe('current');
    // A mark put back by hand (below the head) races two instances, one with the head and one with an older seq.
    await repositories.patch(project, repositoryResourceName(repo), { metadata: { annotations: { [PUSHED_SEQ_ANNOTATION]: '1' } } });
    const racing = await Promise.all(Array.from({ length: 6 }, (_, i) => new PushedSeqMarker(new KubeRepositoryResources(repositories, ownNamespace)).raise(repo, i % 2 ? seq : seq - 1)));
    expect(racing).toContain('raised');
    expect(markOf(await repositories.get(project, repositoryResourceName(repo)))).toBe(String(seq));
  });

  it('finds a resource made with kubectl under a name of its author’s in cw-git’s namespace', async () => {
    const other = parseRepoPath(`Acme_${suffix}/handmade`);
    await repositories.create({ metadata: { name: 'handmade', namespace: ownNamespace }, spec: { owner: other.owner, name: other.name } });
    await new BucketRepositoryDirectory(repos).create(other);
    const { seq } = await repos.readHead(other.full, { fresh: true });
    const marked = await waitFor(watch, `${ownNamespace}/handmade`, (r) => markOf(r) === String(seq), 10_000);
    expect(markOf(marked.object)).toBe(String(seq));
  });
});
