// The repository JSON API under `/{owner}/{repo}/api` and, for browsers, `/{owner}/{repo}/api-browser`: the same
// handlers, the second lane with CORS for `server.cors_origins` only. Each route module registers its routes on a
// lane's scope; `REPO_API_ROUTES` is the one list of them.
import type { FastifyInstance } from 'fastify';
import type { RepoApiDependencies } from './dependencies.ts';

/** A route module: registers its routes, relative to a lane's prefix (`/` is the lane itself). */
export type RepoApiRoutes = (scope: FastifyInstance, deps: RepoApiDependencies) => void;

/** The lanes of the API: the path segment after `/{owner}/{repo}`, and whether it is the browser's. */
export const LANES = [
  { path: 'api', browser: false },
  { path: 'api-browser', browser: true },
] as const;

export function repoApiRoutes(app: FastifyInstance, deps: RepoApiDependencies, routes: readonly RepoApiRoutes[]): void {
  for (const lane of LANES) {
    app.register(
      async (scope) => {
        if (lane.browser) deps.browserLane?.(scope);
        for (const register of routes) register(scope, deps);
      },
      { prefix: `/:owner/:repo/${lane.path}` },
    );
  }
}
