// Test helper: the LFS routes on a minimal Fastify app with cw-git's error handler and authentication, over
// any ObjectStore and a fixed list of repositories (the git server is not needed to exercise LFS).
import Fastify, { type FastifyInstance } from 'fastify';
import type { ObjectStore } from '../../../src/object-store/object-store.ts';
import { gitAuth, mintToken } from '../../auth/index.ts';
import { errorHandler } from '../../errors.ts';
import { lfsRoutes, type LfsDependencies } from '../lfs-routes.ts';
import { SpoolBudget } from '../../plumbing/spool-budget.ts';

export const TEST_TOKEN_SECRET = 'lfs-test-secret-of-at-least-32-bytes';

export interface LfsTestServer {
  app: FastifyInstance;
  /** A read+write token, and a read-only one. */
  writeToken: string;
  readToken: string;
  /** Every answered request, in order (method, path without query, status, whether it carried credentials). */
  exchanges: { method: string; path: string; status: number; authenticated: boolean }[];
}

/** Builds (does not listen) an app serving LFS for `repos` (`owner/name` each). */
export async function lfsTestServer(objects: ObjectStore, repos: string[], options: Partial<LfsDependencies> = {}, auth: { trustedProxies?: string[] } = {}): Promise<LfsTestServer> {
  const app = Fastify();
  const exchanges: LfsTestServer['exchanges'] = [];
  app.addHook('onResponse', (request, reply, done) => {
    exchanges.push({ method: request.method, path: request.url.split('?')[0] ?? '', status: reply.statusCode, authenticated: request.headers.authorization !== undefined });
    done();
  });
  errorHandler(app);
  gitAuth(app, { tokenSecret: TEST_TOKEN_SECRET, ...auth });
  lfsRoutes(app, { objects, repos: { exists: async (repo) => repos.includes(repo.full) }, spool: new SpoolBudget({ totalBytes: 1024 ** 3, perOwnerBytes: 1024 ** 3 }), ...options });
  await app.ready();
  return {
    app,
    writeToken: mintToken({ sub: 'writer', scopes: ['write'] }, TEST_TOKEN_SECRET),
    readToken: mintToken({ sub: 'reader', scopes: ['read'] }, TEST_TOKEN_SECRET),
    exchanges,
  };
}
