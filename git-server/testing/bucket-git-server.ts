// A cw-git for tests: the whole HTTP surface on `objects`, its repositories found in the bucket, HMAC tokens of
// `tokenSecret`, a cache of its own in a temporary directory. `limits.maxRefs` is the store's ref limit
// (`quota.repository_max_refs`, which serve.ts gives the RepoStore rather than the app).
import { mkdir, mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance, FastifyServerOptions } from 'fastify';
import { Registry } from 'prom-client';
import type { ObjectStore } from '../../src/object-store/object-store.ts';
import { RepoStore } from '../../src/repo-store/index.ts';
import { buildGitServer, type GitServerLimits } from '../app.ts';
import { DrainState } from '../drain.ts';
import { ServiceMetrics } from '../metrics.ts';
import { RepoCache } from '../plumbing/repo-cache.ts';
import { BucketRepositoryDirectory } from '../repositories/bucket-repository-directory.ts';
import { GitClient } from '../../e2e/harness/git-client.ts';

export async function bucketGitServer(
  objects: ObjectStore,
  tokenSecret: string,
  { maxRefs, ...limits }: Partial<GitServerLimits> & { maxRefs?: number } = {},
  options: FastifyServerOptions = {},
  cacheDir?: string,
): Promise<FastifyInstance> {
  const repos = new RepoStore({ store: objects, ...(maxRefs === undefined ? {} : { maxRefs }) });
  const cache = new RepoCache({ repos, dir: cacheDir ?? (await mkdtemp(join(tmpdir(), 'cw-git-test-'))) });
  await mkdir(cache.tmpDir, { recursive: true }); // as serve.ts makes it at start: uploads spool there
  return buildGitServer(
    {
      repos,
      objects,
      cache,
      directory: new BucketRepositoryDirectory(repos),
      auth: { tokenSecret },
      metrics: new ServiceMetrics(new Registry()),
      drain: new DrainState(),
      limits,
    },
    options,
  );
}

/** Starts `app` on a free loopback port; answers the base URL stock git reaches it at, with `token` as its password. */
export async function listenForGit(app: FastifyInstance, token: string): Promise<string> {
  await app.listen({ host: '127.0.0.1', port: 0 });
  const address = app.server.address();
  return `http://git:${token}@127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
}

/** A cw-git listening for stock git (`bucketGitServer`) with `repo` created, and a fresh work tree to push from. */
export interface PushBed {
  readonly app: FastifyInstance;
  /** The repository's URL for git, the token in it. */
  readonly remote: string;
  readonly git: GitClient;
  readonly work: string;
  /** The instance's cache directory (its `tmp` holds what is being received). */
  readonly cacheDir: string;
}

export async function pushBed(objects: ObjectStore, tokenSecret: string, token: string, repo: string, limits: Parameters<typeof bucketGitServer>[2] = {}): Promise<PushBed> {
  const cacheDir = await mkdtemp(join(tmpdir(), 'cw-git-test-'));
  const app = await bucketGitServer(objects, tokenSecret, limits, {}, cacheDir);
  const remote = `${await listenForGit(app, token)}/${repo}`;
  const created = await app.inject({ method: 'PUT', url: `/${repo}`, headers: { authorization: `Bearer ${token}` } });
  if (created.statusCode !== 201) throw new Error(`creating ${repo} answered ${created.statusCode}: ${created.body}`);
  const git = await GitClient.create();
  const work = await git.workdir('site');
  await git.run(['init', '-q'], { cwd: work });
  return { app, remote, git, work, cacheDir };
}
