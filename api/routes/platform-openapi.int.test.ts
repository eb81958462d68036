import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { memoryDns, type MemoryDns } from './testing/memory-dns.ts';
import { platformApp, type PlatformApp } from './testing/platform-app.ts';

interface Operation {
  summary?: string;
  tags?: string[];
  security?: Record<string, string[]>[];
  requestBody?: { content: Record<string, unknown> };
  responses: Record<string, { description?: string; content?: Record<string, { schema: unknown }> }>;
}

let p: PlatformApp;
let dns: MemoryDns;
let paths: Record<string, Record<string, Operation>>;

beforeAll(async () => {
  dns = await memoryDns();
  p = await platformApp({ dns: dns.settings });
  const res = await p.app.inject({ method: 'GET', url: '/openapi.json' });
  expect(res.statusCode).toBe(200);
  paths = res.json().paths;
});
afterAll(async () => {
  await p?.close();
  await dns?.stop();
});

// Every route of the platform API core, with the scope it needs (null: public; '': any valid token).
const ROUTES: [string, string, string | null][] = [
  ['get', '/v1/projects', 'projects:read'],
  ['post', '/v1/projects', 'projects:write'],
  ['get', '/v1/projects/{projectId}', 'projects:read'],
  ['delete', '/v1/projects/{projectId}', 'projects:write'],
  ['get', '/v1/projects/{projectId}/members', 'projects:read'],
  ['get', '/v1/projects/{projectId}/audit', 'audit:read'],
  ['put', '/v1/projects/{projectId}/members/{userId}', 'projects:write'],
  ['delete', '/v1/projects/{projectId}/members/{userId}', 'projects:write'],
  ['get', '/v1/projects/{projectId}/invitations', 'projects:read'],
  ['delete', '/v1/projects/{projectId}/invitations/{userId}', 'projects:write'],
  ['get', '/v1/user/invitations', 'projects:read'],
  ['post', '/v1/user/invitations/{projectId}/accept', 'projects:write'],
  ['delete', '/v1/user/invitations/{projectId}', 'projects:write'],
  ['post', '/v1/tokens', 'tokens:write'],
  ['get', '/v1/tokens', 'tokens:read'],
  ['delete', '/v1/tokens/{tokenId}', 'tokens:write'],
  ['post', '/v1/device/code', null],
  ['post', '/v1/device/token', null],
  ['get', '/v1/device/requests/{userCode}', 'tokens:write'],
  ['post', '/v1/device/approve', 'tokens:write'],
  ['post', '/v1/device/deny', 'tokens:write'],
  ['get', '/v1/user', 'projects:read'],
  ['delete', '/v1/user/token', ''],
  ['put', '/v1/user/password', ''],
  ['put', '/v1/users/{userId}/password', 'admin'],
  ['post', '/v1/session', null],
  ['get', '/v1/session/methods', null],
  ['get', '/v1/session', ''],
  ['delete', '/v1/session', ''],
  ['delete', '/v1/sessions', 'tokens:write'],
  ['get', '/v1/users', 'admin'],
  ['post', '/v1/users', 'admin'],
  ['get', '/v1/users/{userId}', 'admin'],
  ['delete', '/v1/users/{userId}', 'admin'],
  ['get', '/v1/projects/{projectId}/apps', 'apps:read'],
  ['post', '/v1/projects/{projectId}/apps', 'apps:write'],
  ['get', '/v1/projects/{projectId}/apps/{appId}', 'apps:read'],
  ['patch', '/v1/projects/{projectId}/apps/{appId}', 'apps:write'],
  ['get', '/v1/projects/{projectId}/apps/{appId}/logs', 'apps:read'],
  ['get', '/v1/projects/{projectId}/apps/{appId}/metrics', 'apps:read'],
  ['delete', '/v1/projects/{projectId}/apps/{appId}', 'apps:write'],
  ['post', '/v1/projects/{projectId}/apps/{appId}/deployments', 'deploys:write'],
  ['get', '/v1/projects/{projectId}/apps/{appId}/builds', 'apps:read'],
  ['get', '/v1/projects/{projectId}/apps/{appId}/deployments', 'apps:read'],
  ['post', '/v1/projects/{projectId}/apps/{appId}/rollbacks', 'deploys:write'],
  ['get', '/v1/projects/{projectId}/apps/{appId}/environment', 'env:read'],
  ['put', '/v1/projects/{projectId}/apps/{appId}/environment/{key}', 'env:write'],
  ['delete', '/v1/projects/{projectId}/apps/{appId}/environment/{key}', 'env:write'],
  ['get', '/v1/projects/{projectId}/apps/{appId}/database-bindings', 'env:read'],
  ['put', '/v1/projects/{projectId}/apps/{appId}/database-bindings/{name}', 'env:write'],
  ['delete', '/v1/projects/{projectId}/apps/{appId}/database-bindings/{name}', 'env:write'],
  ['get', '/v1/projects/{projectId}/apps/{appId}/domains', 'apps:read'],
  ['post', '/v1/projects/{projectId}/apps/{appId}/domains', 'apps:write'],
  ['delete', '/v1/projects/{projectId}/apps/{appId}/domains/{domain}', 'apps:write'],
  ['post', '/v1/projects/{projectId}/apps/{appId}/domains/{domain}/finalize', 'apps:write'],
  ['get', '/v1/projects/{projectId}/domains', 'domain:read'],
  ['post', '/v1/projects/{projectId}/domains', 'domain:write'],
  ['get', '/v1/projects/{projectId}/domains/{domain}', 'domain:read'],
  ['delete', '/v1/projects/{projectId}/domains/{domain}', 'domain:write'],
  ['post', '/v1/projects/{projectId}/domains/{domain}/delegation-check', 'domain:write'],
  ['get', '/v1/projects/{projectId}/domains/{domain}/records', 'domain:read'],
  ['post', '/v1/projects/{projectId}/domains/{domain}/records', 'domain:write'],
  ['put', '/v1/projects/{projectId}/domains/{domain}/records/{recordId}', 'domain:write'],
  ['delete', '/v1/projects/{projectId}/domains/{domain}/records/{recordId}', 'domain:write'],
  ['post', '/v1/projects/{projectId}/git-tokens', 'tokens:write'],
  ['get', '/v1/projects/{projectId}/git-tokens', 'repositories:read'],
  ['delete', '/v1/projects/{projectId}/git-tokens/{tokenId}', 'tokens:write'],
  // Connecting a repository needs both: the app's and the repository's (space-separated, as OAuth writes scopes).
  ['put', '/v1/projects/{projectId}/apps/{appId}/source', 'apps:write repositories:read deploys:write env:read'],
  ['get', '/v1/projects/{projectId}/apps/{appId}/source', 'apps:read'],
  ['delete', '/v1/projects/{projectId}/apps/{appId}/source', 'apps:write'],
  ['get', '/v1/projects/{projectId}/apps/{appId}/source-builds', 'apps:read'],
  ['put', '/v1/projects/{projectId}/apps/{appId}/rollout', 'deploys:write'],
  ['get', '/v1/projects/{projectId}/apps/{appId}/rollout', 'apps:read'],
  ['delete', '/v1/projects/{projectId}/apps/{appId}/rollout', 'deploys:write'],
  ['post', '/v1/projects/{projectId}/apps/{appId}/rollout/promote', 'deploys:write'],
  ['post', '/v1/projects/{projectId}/apps/{appId}/rollout/abort', 'deploys:write'],
  ['post', '/v1/projects/{projectId}/apps/{appId}/rollout/retry', 'deploys:write'],
  ['get', '/v1/projects/{projectId}/apps/{appId}/source-builds/{build}', 'apps:read'],
  ['post', '/v1/projects/{projectId}/apps/{appId}/source-builds/{build}/cancel', 'deploys:write'],
  ['get', '/v1/projects/{projectId}/apps/{appId}/source-builds/{build}/logs', 'apps:read'],
];

describe('the OpenAPI description of the platform API core', () => {
  it.each(ROUTES)('lists %s %s with its security requirement, summary, tags and error responses', (method, path, scope) => {
    const operation = paths[path]?.[method];
    expect(operation, `${method} ${path}`).toBeDefined();
    if (!operation) return;
    expect(operation.summary).toBeTruthy();
    expect(operation.tags?.length).toBeGreaterThan(0);
    expect(operation.responses['500']).toBeDefined();
    if (scope === null) {
      expect(operation.security).toBeUndefined();
    } else {
      expect(operation.security).toEqual([{ bearer: scope === '' ? [] : scope.split(' ') }]);
      expect(Object.keys(operation.responses)).toEqual(expect.arrayContaining(['401', '403']));
    }
  });

  it('documents nothing else under /v1 and hides the verification page', () => {
    const documented = Object.entries(paths).flatMap(([path, ops]) => Object.keys(ops).map((method) => `${method} ${path}`));
    expect(documented.filter((route) => route.includes(' /v1/')).sort()).toEqual(ROUTES.map(([m, path]) => `${m} ${path}`).sort());
    expect(paths['/device']).toBeUndefined();
  });

  it('documents the deploy upload as raw bytes with its options and limits', () => {
    const deploy = paths['/v1/projects/{projectId}/apps/{appId}/deployments']?.post as Operation & { parameters: { in: string; name: string }[] };
    expect(Object.keys(deploy.requestBody?.content ?? {})).toEqual(['application/octet-stream']);
    expect(JSON.stringify(deploy.requestBody)).toContain('64 MiB');
    expect(
      deploy.parameters
        .filter((p) => p.in === 'query')
        .map((p) => p.name)
        .sort(),
    ).toEqual(['environment', 'hostnames', 'max_concurrent_requests']);
    expect(Object.keys(deploy.responses)).toEqual(expect.arrayContaining(['200', '400', '404', '409', '413', '415', '503']));
  });

  it('documents the OAuth error bodies of the device endpoints and their form bodies', () => {
    const token = paths['/v1/device/token']?.post;
    expect(Object.keys(token?.requestBody?.content ?? {}).sort()).toEqual(['application/json', 'application/x-www-form-urlencoded']);
    const bad = JSON.stringify(token?.responses['400']);
    expect(bad).toContain('error_description');
    expect(bad).toContain('exception to problem details');
    expect(bad).not.toContain('Problem');
    // The authorization request's 400 is a problem detail with the OAuth members (RFC 8628 §3.2).
    const refused = JSON.stringify(paths['/v1/device/code']?.post?.responses['400']);
    expect(refused).toContain('application/problem+json');
    expect(refused).toContain('invalid_scope');
  });
});
