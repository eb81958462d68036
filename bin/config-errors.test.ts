// Every server binary, run as a process with one bad variable: it stops before connecting to anything (no
// cluster, bucket or DNS is needed here) with exit status 2 and one line on stderr naming the variable.
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '..');
// The project's Node 24 (make setup puts it in .tools/bin), else whichever runs the tests.
const NODE = existsSync(join(ROOT, '.tools/bin/node')) ? join(ROOT, '.tools/bin/node') : process.execPath;
const state = mkdtempSync(join(tmpdir(), 'cw-config-errors-'));
const gitConfig = join(state, 'cw-git.yaml');
writeFileSync(gitConfig, `store: { bucket: cw-git }\nauth: { token_secret: ${'s'.repeat(40)} }\n`);
afterAll(() => rmSync(state, { recursive: true, force: true }));

function run(args: string[], env: Record<string, string>): Promise<{ code: number | null; stderr: string }> {
  return new Promise((done) => {
    // A clean environment: no KUBECONFIG, so a binary that connected first would fail differently.
    execFile(NODE, args, { cwd: ROOT, env: { PATH: process.env.PATH ?? '', HOME: state, ...env }, timeout: 30_000 }, (err, _stdout, stderr) => {
      done({ code: err ? ((err as { code?: number }).code ?? null) : 0, stderr });
    });
  });
}

// Each case starts a binary (its TypeScript loaded afresh): seconds on a busy machine, within the child's own 30 s.
describe('a bad variable stops each binary with one line and exit status 2', { timeout: 30_000 }, () => {
  it.each([
    ['cw-api', ['bin/cw-api.ts'], { CW_API_PORT: '80a' }, 'cw-api: CW_API_PORT must be a port number from 1 to 65535, got "80a"'],
    ['cw-operator', ['bin/cw-operator.ts'], { CW_LEADER_ELECTION: 'no' }, 'cw-operator: CW_LEADER_ELECTION must be true or false (or 1 or 0), got "no"'],
    ['cw-runtime', ['bin/cw-runtime.ts'], { CW_S3_BUCKET: 'builds', CW_RUNTIME_WORKERS: 'many' }, 'cw-runtime: CW_RUNTIME_WORKERS must be a whole number from 1 to 10000, got "many"'],
    [
      'cw-git',
      ['bin/cw-git.ts', 'serve', '--config', gitConfig],
      { AWS_ACCESS_KEY_ID: 'id', AWS_SECRET_ACCESS_KEY: 'secret', CW_LOG_LEVEL: 'loud' },
      'cw-git: CW_LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent, got "loud"',
    ],
    [
      'cw-db',
      ['bin/cw-db.ts'],
      { CW_DB_ADMIN_TOKEN: 'a'.repeat(32), CW_DB_DATA_DIR: join(state, 'cw-db'), CW_DB_BUCKET: 'cw-db', CW_DB_PORT: '80a' },
      'cw-db: CW_DB_PORT must be a port number from 1 to 65535, got "80a"',
    ],
  ])('%s', async (_name, args, env, line) => {
    const { code, stderr } = await run(args, env);
    expect(stderr).toBe(`${line}\n`);
    expect(stderr).not.toMatch(/^\s+at /m);
    expect(code).toBe(2);
  });

  it("stops cw-runtime before it listens when apps' SQL endpoint is on an address the platform shares", async () => {
    const kubeconfig = join(state, 'kubeconfig');
    writeFileSync(
      kubeconfig,
      'apiVersion: v1\nkind: Config\nclusters: [{name: c, cluster: {server: "https://127.0.0.1:1"}}]\nusers: [{name: u, user: {token: t}}]\ncontexts: [{name: x, context: {cluster: c, user: u}}]\ncurrent-context: x\n',
    );
    const { code, stderr } = await run(['bin/cw-runtime.ts'], { CW_S3_BUCKET: 'builds', KUBECONFIG: kubeconfig, CW_RUNTIME_DATABASE_URL: 'http://localhost:8090' });
    expect(stderr).toMatch(
      /^cw-runtime: CW_RUNTIME_DATABASE_URL: localhost resolves to .*(127\.0\.0\.1|::1).*, where other parts of the platform listen too, so apps could reach them; give cw-db's SQL listener an address of its own/,
    );
    expect(stderr.split('\n')).toHaveLength(2);
    expect(code).toBe(2);
  });

  it('never shows a secret', async () => {
    const { code, stderr } = await run(['bin/cw-api.ts'], { CW_S3_BUCKET: 'builds', CW_S3_SECRET_ACCESS_KEY: 'hunter2-secret' });
    expect(stderr).toBe('cw-api: CW_S3_ACCESS_KEY_ID and CW_S3_SECRET_ACCESS_KEY go together (or neither: the default AWS credential chain)\n');
    expect(code).toBe(2);
  });
});
