// Writes docs/cw-git-openapi.json, cw-git's OpenAPI 3.1 document, from its routes. scripts/update-git-openapi.test.ts
// fails when the committed copy differs from what this would write.
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Registry } from 'prom-client';
import { buildGitServer, type GitServerDependencies } from '../git-server/app.ts';
import { DrainState } from '../git-server/drain.ts';
import { ServiceMetrics } from '../git-server/metrics.ts';

/** Where the generated document is committed. */
export const GIT_OPENAPI_PATH = fileURLToPath(new URL('../docs/cw-git-openapi.json', import.meta.url));

/**
 * The document cw-git serves at `/openapi.json`, from the routes alone: storage, the cache and the directory are
 * stand-ins that throw when used (registering routes must not touch them); only the cache's tmp directory is named,
 * never created.
 */
export async function gitOpenApiDocument(): Promise<Record<string, unknown>> {
  const cache = new Proxy({ tmpDir: '/nonexistent/cw-git-openapi' }, { get: (target, key) => (key === 'tmpDir' ? target.tmpDir : untouchable(`cache.${String(key)}`)) });
  const deps: GitServerDependencies = {
    repos: untouchable('repos') as GitServerDependencies['repos'],
    objects: untouchable('objects') as GitServerDependencies['objects'],
    cache: cache as unknown as GitServerDependencies['cache'],
    directory: untouchable('directory') as GitServerDependencies['directory'],
    auth: { tokenSecret: 'openapi-document-only-secret-0123456789' },
    metrics: new ServiceMetrics(new Registry()),
    drain: new DrainState(),
  };
  const app = await buildGitServer(deps);
  try {
    await app.ready();
    return app.swagger() as unknown as Record<string, unknown>;
  } finally {
    await app.close();
  }
}

/** The document as committed: two-space JSON with a final newline. */
export async function renderGitOpenApi(): Promise<string> {
  return `${JSON.stringify(await gitOpenApiDocument(), null, 2)}\n`;
}

function untouchable(name: string): unknown {
  const fail = (): never => {
    throw new Error(`update-git-openapi: dependency \`${name}\` was used while building the OpenAPI document; route registration must not call dependencies`);
  };
  return new Proxy(fail, { get: fail, apply: fail, construct: fail, has: fail, ownKeys: fail });
}

if (import.meta.main) {
  const next = await renderGitOpenApi();
  let current: string | undefined;
  try {
    current = readFileSync(GIT_OPENAPI_PATH, 'utf8');
  } catch {
    current = undefined;
  }
  if (current === next) console.log('docs/cw-git-openapi.json is up to date');
  else {
    writeFileSync(GIT_OPENAPI_PATH, next);
    console.log('wrote docs/cw-git-openapi.json');
  }
}
