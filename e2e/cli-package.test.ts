// The cw npm package as a user installs it: packed from cli/, installed with `npm install -g` into an empty
// prefix, without any of the server's dependencies, and working on the oldest Node it supports (22.15, the
// `engines` of cli/package.json) as on Node 24: a deploy packs with node:zlib's zstd and streams the upload.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createMemberAccount, createProjectNamespace, type MemberAccount } from './harness/accounts.ts';
import { startApiServer, type ApiServer } from './harness/api-server.ts';
import { cw, cwJson, newCwUser } from './harness/cli.ts';
import { s3Env } from './harness/runtime-stack.ts';
import { repoRoot, toolPath } from './harness/tools.ts';

const NODES = { 'Node 24': toolPath('node'), 'Node 22.15': join(repoRoot, '.tools', 'bin', 'node-cli-oldest') };
/** Packages of the server that a laptop must not download to run cw. */
const SERVER_ONLY = ['@kubernetes/client-node', '@aws-sdk/client-s3', '@cloudflare/workerd-linux-64', 'fastify', 'typebox', 'prom-client'];

let prefix: string;
let bin: string;
let api: ApiServer | undefined;
let member: MemberAccount;

beforeAll(async () => {
  const work = mkdtempSync(join(inject('stateDir'), 'cw-package-'));
  // The build is `make cli`'s (cli/dist): packing without the prepack script never rewrites it under the feet
  // of the other tests running it.
  const packed =
    execFileSync('npm', ['pack', '--silent', '--ignore-scripts', '--pack-destination', work], { cwd: join(repoRoot, 'cli'), encoding: 'utf8' })
      .trim()
      .split('\n')
      .at(-1) ?? '';
  prefix = join(work, 'prefix');
  // Packages come from npm's cache when it has them (it does after `npm ci`), else from the registry.
  execFileSync('npm', ['install', '--global', '--prefix', prefix, '--prefer-offline', '--no-audit', '--no-fund', join(work, packed)], { stdio: 'pipe' });
  bin = join(prefix, 'lib', 'node_modules', '@cloudwright', 'cli', 'dist', 'bin', 'cw.js');
  member = await createMemberAccount(inject('kubeconfig'), 'cli-package');
  await createProjectNamespace(inject('kubeconfig'), member.project);
  api = await startApiServer({ kubeconfig: inject('kubeconfig'), stateDir: inject('stateDir'), env: s3Env() });
}, 180_000);

afterAll(() => api?.stop());

/** Every package directory installed under `dir`, at any depth. */
function installedPackages(dir: string): string[] {
  const found: string[] = [];
  const visit = (modules: string): void => {
    if (!existsSync(modules)) return;
    for (const entry of readdirSync(modules)) {
      const names = entry.startsWith('@') ? readdirSync(join(modules, entry)).map((n) => `${entry}/${n}`) : [entry];
      for (const name of names) {
        found.push(name);
        visit(join(modules, name, 'node_modules'));
      }
    }
  };
  visit(join(dir, 'node_modules'));
  return found;
}

it('installs with `npm install -g` as a cw command, without the server’s dependencies', () => {
  expect(existsSync(join(prefix, 'bin', 'cw'))).toBe(true);
  const installed = installedPackages(join(prefix, 'lib'));
  expect(installed).toContain('@cloudwright/cli');
  expect(installed.filter((name) => SERVER_ONLY.includes(name))).toEqual([]);
  const version = (JSON.parse(readFileSync(join(repoRoot, 'cli', 'package.json'), 'utf8')) as { version: string }).version;
  expect(execFileSync(join(prefix, 'bin', 'cw'), ['--version'], { encoding: 'utf8', env: { PATH: `${join(repoRoot, '.tools', 'bin')}:/usr/bin:/bin` } }).trim()).toBe(version);
});

describe.each(Object.entries(NODES))('the installed cw on %s', (_, node) => {
  it('deploys a directory (zstd and a streamed upload) and lists the build', async () => {
    if (!api) throw new Error('cw-api is not running');
    const user = newCwUser(api.url, { CW_TOKEN: member.token, CW_PROJECT: member.project });
    expect((await cw(user, ['--version'], { node, bin })).stdout.trim()).toMatch(/^\d+\.\d+\.\d+$/);
    const dir = join(user.home, 'site');
    mkdirSync(dir);
    writeFileSync(join(dir, 'worker.js'), `export default { fetch: () => new Response(${JSON.stringify(node)}) };\n`);
    const deployed = await cwJson<{ build_id: string; uploaded: boolean }>(
      user,
      ['deploy', dir, '--app', 'site', '--no-wait'],
      { method: 'POST', path: '/v1/projects/{projectId}/apps/{appId}/deployments' },
      { node, bin },
    );
    expect(deployed.uploaded).toBe(true);
    const builds = await cwJson<{ builds: { build_id: string }[] }>(user, ['builds', 'ls', '--app', 'site'], { method: 'GET', path: '/v1/projects/{projectId}/apps/{appId}/builds' }, { node, bin });
    expect(builds.builds.map((b) => b.build_id)).toContain(deployed.build_id);
  });
});
