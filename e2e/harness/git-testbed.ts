// What the git end-to-end tests share: two cw-git instances on the run's bucket, the stock git client in
// an isolated HOME, a read+write token, and helpers to name remotes and create repositories.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, expect, inject } from 'vitest';
import { mintToken } from '../../git-server/auth/index.ts';
import type { RunningService } from '../../git-server/serve.ts';
import { GitClient } from './git-client.ts';
import { newTokenSecret, startGitService, type GitServiceSetup } from './git-service.ts';

export interface GitTestbed {
  readonly setup: GitServiceSetup;
  readonly token: string;
  readonly a: RunningService;
  readonly b: RunningService;
  readonly git: GitClient;
  /** The instance's URL for `repo`, with `token` (default: read+write) as the password, as a user configures it. */
  remote: (service: { url: string }, repo: string, token?: string) => string;
  /** A new repository with a random name under `e2e/`, created through `service` (default: a). */
  createRepo: (service?: { url: string }) => Promise<string>;
}

/** Registers the instances' start and stop with the calling test file; use the fields inside tests. The options configure both. */
export function useGitTestbed(options: Pick<GitServiceSetup, 'corsOrigins' | 'initializeSources' | 'importSources'> = {}): GitTestbed {
  const setup: GitServiceSetup = { s3: inject('s3'), bucket: inject('bucket'), tokenSecret: newTokenSecret(), ...options };
  const token = mintToken({ sub: 'ada', scopes: ['read', 'write'] }, setup.tokenSecret);
  const started: { a?: RunningService; b?: RunningService; git?: GitClient } = {};
  beforeAll(async () => {
    [started.a, started.b, started.git] = await Promise.all([startGitService(setup), startGitService(setup), GitClient.create()]);
  });
  afterAll(async () => {
    await Promise.all([started.a?.stop(), started.b?.stop()]);
  });
  const remote = (service: { url: string }, repo: string, secret = token) => `${service.url.replace('http://', `http://git:${secret}@`)}/${repo}`;
  return {
    setup,
    token,
    get a() {
      return started.a!;
    },
    get b() {
      return started.b!;
    },
    get git() {
      return started.git!;
    },
    remote,
    async createRepo(service = started.a!) {
      const repo = `e2e/r-${randomBytes(4).toString('hex')}`;
      const response = await fetch(`${service.url}/${repo}`, { method: 'PUT', headers: { authorization: `Bearer ${token}` } });
      expect(response.status).toBe(201);
      return repo;
    },
  };
}
