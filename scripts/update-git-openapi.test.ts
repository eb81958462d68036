import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, expect, it } from 'vitest';
import { pythonToolPath } from '../e2e/harness/python-tools.ts';
import { GIT_SCOPES } from '../git-server/auth/index.ts';
import { GIT_OPENAPI_PATH, renderGitOpenApi } from './update-git-openapi.ts';

// docs/cw-git-openapi.json is committed but generated from cw-git's routes: fail when a route changed without
// regenerating it, or when the document is invalid or shows a route as public by accident.
const FIX = 'docs/cw-git-openapi.json is out of date with the routes; run `node scripts/update-git-openapi.ts` and commit the result';

/** Operations served without a token, and why (`config: { public: true }`). */
const PUBLIC: Record<string, string> = {
  'GET /healthz': 'probes carry no token',
  'GET /readyz': 'probes carry no token',
};

interface Operation {
  security?: Record<string, string[]>[];
  summary?: string;
}

let rendered: string;
let operations: [string, Operation][];

beforeAll(async () => {
  rendered = await renderGitOpenApi();
  const doc = JSON.parse(rendered) as { paths: Record<string, Record<string, Operation>> };
  operations = Object.entries(doc.paths).flatMap(([path, item]) => Object.entries(item).map(([method, op]) => [`${method.toUpperCase()} ${path}`, op] as [string, Operation]));
});

it('docs/cw-git-openapi.json matches what the routes produce', () => {
  let committed: string | undefined;
  try {
    committed = readFileSync(GIT_OPENAPI_PATH, 'utf8');
  } catch {
    committed = undefined;
  }
  expect(committed === undefined ? 'missing' : committed === rendered ? 'same' : 'differs', FIX).toBe('same');
});

// The validator is a Python process: seconds to start on two cores busy with the integration tests.
it('is a valid OpenAPI 3.1 document', { timeout: 60_000 }, () => {
  const dir = mkdtempSync(join(tmpdir(), 'cw-git-openapi-'));
  try {
    const file = join(dir, 'openapi.json');
    writeFileSync(file, rendered);
    let output: string;
    try {
      output = execFileSync(pythonToolPath('openapi-spec-validator'), ['--schema', '3.1', '--validation-errors', 'all', file], { encoding: 'utf8' });
    } catch (err) {
      const { stdout, stderr } = err as { stdout?: string; stderr?: string };
      throw new Error(`openapi-spec-validator rejects the generated document:\n${`${stdout ?? ''}${stderr ?? ''}`.slice(0, 4000)}`);
    }
    expect(output).toContain('OK');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

it('describes git, LFS, the JSON API and discovery, each with a summary', () => {
  const names = operations.map(([name]) => name);
  expect(names).toEqual(
    expect.arrayContaining([
      'GET /{owner}/{repo}/info/refs',
      'POST /{owner}/{repo}/git-upload-pack',
      'POST /{owner}/{repo}/git-receive-pack',
      'POST /{owner}/{repo}/info/lfs/objects/batch',
      'GET /{owner}/{repo}/api',
      'GET /{owner}/{repo}/api/archive/{archive_ref}',
      'HEAD /{owner}/{repo}/api/archive/{archive_ref}',
      'GET /api/v1',
    ]),
  );
  expect(operations.filter(([, op]) => !op.summary).map(([name]) => name)).toEqual([]);
  // The browser lane repeats /api: described once.
  expect(names.filter((name) => name.includes('/api-browser'))).toEqual([]);
});

it('every operation needs a bearer token with a known scope, or is listed as public', () => {
  const problems = operations.flatMap(([name, op]) => {
    const requirements = op.security ?? [];
    if (requirements.length === 0) return name in PUBLIC ? [] : [`${name}: no security requirement, and not listed in PUBLIC`];
    if (name in PUBLIC) return [`${name}: listed in PUBLIC but needs a token`];
    const scopes = requirements.flatMap((r) => Object.entries(r)).flatMap(([scheme, s]) => (scheme === 'bearer' ? s : [`unknown scheme ${scheme}`]));
    return scopes.filter((s) => !(GIT_SCOPES as readonly string[]).includes(s)).map((s) => `${name}: ${s}`);
  });
  expect(problems).toEqual([]);
});
