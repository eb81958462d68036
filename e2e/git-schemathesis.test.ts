// Property-based fuzzing of cw-git's repository JSON API with schemathesis (pinned in e2e/requirements.txt), as
// e2e/schemathesis.test.ts does for cw-api: a real cw-git on the run's bucket, a repository with a small history
// pushed by the stock git client, and schemathesis driven from cw-git's own /openapi.json with a read token.
// Every check schemathesis has: fails on any 5xx, any answer that breaks what is documented for it, valid data refused,
// invalid data accepted, and an undeclared method answered otherwise than 405 with `Allow`.
//
// Scope: the JSON API's read routes (`/{owner}/{repo}/api…`, GET and HEAD) and discovery (`/api/v1`) only.
// Git smart HTTP and LFS speak binary protocols their schemas do not describe (pkt-lines, pack streams), and the
// write routes (create, delete) would need a write token and would remove the repository the run reads; schemathesis
// cannot drive either meaningfully. They have their own end-to-end tests (git-smart-http, git-lfs, git-admin).
//
// The seed is fixed unless CW_FUZZ_SEED=random; `CW_FUZZ_EXAMPLES` raises the examples per operation.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, expect, inject, it } from 'vitest';
import { mintToken } from '../git-server/auth/index.ts';
import { useGitTestbed } from './harness/git-testbed.ts';
import { failureSummary, runSchemathesis } from './harness/schemathesis.ts';
import { repoRoot } from './harness/tools.ts';

/** Every check schemathesis has: status codes, content types, headers, schemas, positive and negative data, methods. */
const CHECKS = ['all'];
/** Examples per operation and phase: with every check, about 90 s on two quiet cores over the JSON API's operations. */
const MAX_EXAMPLES = Number(process.env.CW_FUZZ_EXAMPLES ?? 40);
/** The JSON API lane and discovery; everything else in the document is out of scope (see above). */
const IN_SCOPE = String.raw`^/(api/v1|\{owner\}/\{repo\}/api(/.*)?)$`;

/** Every operation IN_SCOPE selects, as `successfulOperations` names them. */
const IN_SCOPE_OPERATIONS = [
  'GET /api/v1',
  'GET api',
  'GET api/archive',
  'GET api/blob',
  'GET api/commit',
  'GET api/commits',
  'GET api/compare',
  'GET api/ops',
  'GET api/overview',
  'GET api/refs',
  'GET api/resolve',
  'GET api/tasks',
  'GET api/tree',
  'HEAD api/archive',
];

const bed = useGitTestbed();
const readToken = mintToken({ sub: 'fuzz', scopes: ['read'] }, bed.setup.tokenSecret);
let repo = '';
/** Revisions and paths that exist, so `{rest}` reaches past 404 into the handlers. */
const known: { rest: string[]; archives: string[] } = { rest: [], archives: [] };

beforeAll(async () => {
  repo = await bed.createRepo();
  const work = await bed.git.workdir(`fuzz-${repo.split('/')[1]}`);
  const git = (...args: string[]) => bed.git.run(args, { cwd: work });
  await git('init', '-q', '-b', 'main');
  const first = await bed.git.commit(work, 'first', { 'README.md': '# fuzz\n', 'src/index.ts': 'export {};\n', 'logo.bin': '\0\x01binary' });
  await git('tag', '-a', 'v1', '-m', 'version one');
  await git('checkout', '-q', '-b', 'feature');
  const feature = await bed.git.commit(work, 'feature', { 'src/feature.ts': 'export const x = 1;\n', 'README.md': '# fuzz\n\nmore\n' });
  await git('checkout', '-q', 'main');
  const second = await bed.git.commit(work, 'second\n\nwith a body', { 'docs/guide.md': 'guide\n' });
  await git('push', '-q', bed.remote(bed.a, repo), 'main', 'feature', 'v1');
  // Dictionary values with a `/` never reach a request (schemathesis drops them for path parameters), so paths
  // inside a tree come from the blob operation's fixed `{rest}` below.
  known.rest = ['main', 'feature', 'v1', first, second, feature.slice(0, 7), 'main...feature', `${first}...${second}`, 'v1...feature', 'v1..main'];
  known.archives = ['main.tar.gz', 'main.zip', 'v1.tar.gz', `${first}.zip`];
}, 60_000);

/**
 * Steering, not exclusion: `{owner}/{repo}` is always the pushed repository (otherwise nearly every request is a
 * 404 before any handler runs); `{rest}` and `{archive_ref}` often take revisions and comparisons that exist; the
 * blob operation always reads one file (its query parameters are what varies).
 *
 * Expected answers: a path parameter over the router's limit (414) and a URL over the server's (431) are refusals of
 * invalid data too. Whether text names a revision is git's to say (its ref-name rules, and which objects exist), not
 * a pattern's: a well-formed `{rest}` that names no revision or comparison, or an archive name without its format,
 * is a 400 on the three operations that read one.
 */
function config(): string {
  const [owner, name] = repo.split('/');
  const values = (items: readonly string[]) => `[${items.map((v) => JSON.stringify(v)).join(', ')}]`;
  return `
[dictionaries]
rests = { values = ${values(known.rest)} }
archives = { values = ${values(known.archives)} }

[parameters]
"path.owner" = ${JSON.stringify(owner)}
"path.repo" = ${JSON.stringify(name)}
"path.rest" = { dictionary = "rests", probability = 0.6 }
"path.archive_ref" = { dictionary = "archives", probability = 0.6 }

[checks.negative_data_rejection]
expected-statuses = ["400", "401", "403", "404", "405", "406", "409", "413", "414", "415", "422", "428", "429", "431", "5xx"]

[[operations]]
include-name = "GET /{owner}/{repo}/api/blob/{rest}"
parameters = { "path.rest" = "main/README.md" }
${['GET /{owner}/{repo}/api/commit/{rest}', 'GET /{owner}/{repo}/api/compare/{rest}', 'GET /{owner}/{repo}/api/archive/{archive_ref}', 'HEAD /{owner}/{repo}/api/archive/{archive_ref}']
  .map((name) => `\n[[operations]]\ninclude-name = ${JSON.stringify(name)}\nchecks.positive_data_acceptance.expected-statuses = ["2xx", "400", "401", "403", "404", "409", "429", "5xx"]\n`)
  .join('')}`;
}

it('serves the document committed as docs/cw-git-openapi.json', async () => {
  const served = (await (await fetch(`${bed.a.url}/openapi.json`)).json()) as unknown;
  const committed = JSON.parse(readFileSync(join(repoRoot, 'docs/cw-git-openapi.json'), 'utf8')) as unknown;
  expect(served, 'the running cw-git serves another document; run `node scripts/update-git-openapi.ts`').toEqual(committed);
});

it('answers no JSON API read with a 5xx or with a body that breaks its documented schema', { timeout: 330_000 }, async () => {
  const result = await runSchemathesis({
    apiUrl: bed.a.url,
    token: readToken,
    dir: join(inject('stateDir'), 'git-schemathesis'),
    config: config(),
    checks: CHECKS,
    maxExamples: MAX_EXAMPLES,
    seed: process.env.CW_FUZZ_SEED === 'random' ? undefined : (process.env.CW_FUZZ_SEED ?? '20261126'),
    timeoutMs: 300_000,
    extraArgs: ['--include-path-regex', IN_SCOPE],
  });
  // Sanity: the run reached the repository (not only 401s and 404s), so the handlers behind them were tested.
  const summary = await fetch(`${bed.a.url}/${repo}/api`, { headers: { authorization: `Bearer ${readToken}` } });
  expect(summary.status, 'the fuzzing token cannot read the repository; the run tested nothing past auth').toBe(200);
  const reached = successfulOperations(join(inject('stateDir'), 'git-schemathesis', 'report'));
  expect(reached, 'operations that never answered 2xx were only tested up to their 4xx: steer them in config()').toEqual(IN_SCOPE_OPERATIONS);
  expect(result.exitCode, `schemathesis exited with ${result.exitCode} (full output: ${result.outputPath})\n\n${failureSummary(result.output)}`).toBe(0);
});

/**
 * The operations that answered at least one 2xx in the run's HAR report: `GET /api/v1`, or the method and the
 * route's first segments under the repository (`GET api/tree`), sorted.
 */
function successfulOperations(reportDir: string): string[] {
  const reached = new Set<string>();
  for (const file of readdirSync(reportDir).filter((f) => f.startsWith('har-'))) {
    const har = JSON.parse(readFileSync(join(reportDir, file), 'utf8')) as { log: { entries: { request: { method: string; url: string }; response: { status: number } }[] } };
    for (const { request, response } of har.log.entries) {
      if (response.status < 200 || response.status > 299) continue;
      const path = new URL(request.url).pathname;
      reached.add(path === '/api/v1' ? `${request.method} /api/v1` : `${request.method} ${path.split('/').slice(3, 5).join('/')}`);
    }
  }
  return [...reached].sort();
}
