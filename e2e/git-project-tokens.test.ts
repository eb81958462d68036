// Repository access per project (issue 37): the platform API (a real cw-api) mints git tokens per project; cw-git,
// watching the GitTokens and Projects of the real control plane, lets each reach only its own project's
// repositories — with stock git and git-lfs, and on the LFS and JSON routes — and refuses it once revoked, expired
// or when its maker left the project. `cw git setup` wires `cw git credentials` into git, so a signed-in person's
// plain `git clone` just works.
import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { Project } from '../src/apis/v1alpha1/project.ts';
import { loadKubeConnection, objectClient, type KubeObject } from '../src/kube/index.ts';
import { NAMESPACES, PROJECTS } from '../src/platform/resources.ts';
import type { RunningService } from '../git-server/serve.ts';
import { createMemberAccount, createProjectNamespace, inviteAndAccept, type MemberAccount } from './harness/accounts.ts';
import { startApiServer, type ApiServer } from './harness/api-server.ts';
import { cw, type CwUser } from './harness/cli.ts';
import { GitClient } from './harness/git-client.ts';
import type { Service } from './harness/process.ts';
import { newTokenSecret, startGitService } from './harness/git-service.ts';
import { eventually, startOperator } from './harness/runtime-stack.ts';

const kubeconfig = inject('kubeconfig');
let a: MemberAccount;
let b: MemberAccount;
let api: ApiServer | undefined;
let service: RunningService | undefined;
/** The operators making the two projects' Repository resources ready. */
const operators: Service[] = [];
let git: GitClient;
/** How far ahead of the real clock cw-git checks tokens (the expiry test moves it). */
let clockOffsetMs = 0;

/** What the Project controller reports once it created the namespace (it does not run here: no operator watches every namespace). */
async function ownNamespace(project: string): Promise<void> {
  await objectClient<Project>(loadKubeConnection(kubeconfig), PROJECTS).patchStatus('', project, { status: { namespace: project } });
}

beforeAll(async () => {
  [a, b] = await Promise.all([createMemberAccount(kubeconfig, 'gita'), createMemberAccount(kubeconfig, 'gitb')]);
  for (const { project } of [a, b]) {
    await createProjectNamespace(kubeconfig, project);
    await ownNamespace(project);
  }
  // As the chart runs cw-git with project tokens: in a namespace of its own, repositories as Repository resources (a
  // project's in its namespace, made ready by the operator's Repository controller: one per project here, as the
  // test operator watches one namespace), which tell its own repositories from a project's.
  const gitNamespace = `cw-git-${randomBytes(3).toString('hex')}`;
  await objectClient<KubeObject>(loadKubeConnection(kubeconfig), NAMESPACES).create({ metadata: { name: gitNamespace } });
  await Promise.all([a, b].map(({ project }) => startOperator(project, operators, { CW_GIT_BUCKET: inject('bucket') })));
  const started = await Promise.all([
    startGitService(
      { s3: inject('s3'), bucket: inject('bucket'), tokenSecret: newTokenSecret(), projectTokens: { kubeconfig, namespace: gitNamespace }, importSources: [`${b.project}/secret`] },
      { now: () => Date.now() + clockOffsetMs },
    ),
    GitClient.create(),
  ]);
  [service, git] = started;
  api = await startApiServer({ kubeconfig, stateDir: inject('stateDir'), env: { CW_GIT_PUBLIC_URL: service.url } });
}, 120_000);

afterAll(async () => {
  await Promise.all([api?.stop(), service?.stop(), ...operators.map((s) => s.stop(5_000))]);
});

const gitUrl = () => service!.url;
const remote = (repo: string, token: string) => `${gitUrl().replace('http://', `http://git:${token}@`)}/${repo}`;
const basic = (token: string) => `Basic ${Buffer.from(`git:${token}`).toString('base64')}`;

/** A git token of `account`'s project, made through the platform API. */
async function mintGitToken(account: MemberAccount, scopes: ('read' | 'write')[], extra: { expires_in_seconds?: number } = {}, project = account.project): Promise<{ token: string; id: string }> {
  const res = await fetch(`${api!.url}/v1/projects/${project}/git-tokens`, {
    method: 'POST',
    headers: { authorization: `Bearer ${account.token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ description: 'e2e', scopes, ...extra }),
  });
  expect(res.status, await res.clone().text()).toBe(201);
  const body = (await res.json()) as { git_token: string; token: { token_id: string } };
  return { token: body.git_token, id: body.token.token_id };
}

/** cw-git's answer to `method path` with `token` as git sends it (Basic): status and JSON body. */
async function ask(method: string, path: string, token: string, body?: { type: string; data: string }): Promise<{ status: number; message: string }> {
  const res = await fetch(`${gitUrl()}${path}`, { method, headers: { authorization: basic(token), ...(body ? { 'content-type': body.type } : {}) }, ...(body ? { body: body.data } : {}) });
  const text = await res.text();
  let message = '';
  try {
    message = (JSON.parse(text) as { message?: string }).message ?? '';
  } catch {
    message = '';
  }
  return { status: res.status, message };
}

/** A new repository `owner/<name>` made with `token`, holding one commit and one LFS object; answers its LFS oid. */
async function repoWithLfs(repo: string, token: string, content: Buffer): Promise<string> {
  expect((await ask('PUT', `/${repo}`, token)).status).toBe(201);
  const work = await git.workdir(`src-${randomBytes(3).toString('hex')}`);
  await git.run(['init', '-q'], { cwd: work });
  await git.run(['lfs', 'track', '*.bin'], { cwd: work });
  await writeFile(join(work, 'model.bin'), content);
  await git.commit(work, 'first', { 'README.md': `${repo}\n` });
  await git.run(['push', '-q', remote(repo, token), 'main'], { cwd: work });
  return (await git.out(['lfs', 'ls-files', '--long'], work)).split(' ')[0]!;
}

describe('git tokens of a project', () => {
  it('reach their own project’s repositories only: another project’s cannot be cloned, fetched over LFS or the JSON API, pushed, created, deleted or imported', async () => {
    const [mine, theirs] = await Promise.all([mintGitToken(a, ['write']), mintGitToken(b, ['write'])]);
    const secret = `${b.project}/secret`;
    const site = `${a.project}/site`;
    const secretBytes = randomBytes(200_000);
    const oid = await repoWithLfs(secret, theirs.token, secretBytes);
    await repoWithLfs(site, mine.token, randomBytes(1000));
    const reach = `This token reaches only ${a.project}/*; not ${secret}.`;

    // git: clone, ls-remote and push with this project's token are refused with 403.
    const clone = await git.run(['clone', '-q', remote(secret, mine.token), join(git.home, `stolen-${randomBytes(3).toString('hex')}`)], { okCodes: [128] });
    expect(clone.stderr).toMatch(/403/);
    expect((await git.run(['ls-remote', remote(secret, mine.token)], { okCodes: [128] })).stderr).toMatch(/403/);
    const work = await git.workdir(`push-${randomBytes(3).toString('hex')}`);
    await git.run(['init', '-q'], { cwd: work });
    await git.commit(work, 'vandalism', { 'x.txt': 'x\n' });
    expect((await git.run(['push', '-q', remote(secret, mine.token), 'main:refs/heads/evil'], { cwd: work, okCodes: [1, 128] })).stderr).toMatch(/403/);
    for (const [method, path] of [
      ['GET', `/${secret}/info/refs?service=git-upload-pack`],
      ['GET', `/${secret}.git/info/refs?service=git-receive-pack`],
    ] as const) {
      expect(await ask(method, path, mine.token)).toEqual({ status: 403, message: reach });
    }

    // LFS: neither the batch API nor the object itself.
    const batch = JSON.stringify({ operation: 'download', transfers: ['basic'], objects: [{ oid, size: secretBytes.length }] });
    expect(await ask('POST', `/${secret}.git/info/lfs/objects/batch`, mine.token, { type: 'application/vnd.git-lfs+json', data: batch })).toEqual({ status: 403, message: reach });
    expect((await ask('GET', `/${secret}/info/lfs/objects/${oid}`, mine.token)).status).toBe(403);

    // The JSON API, reads and writes.
    for (const path of [`/${secret}/api`, `/${secret}/api/blob/main/README.md?raw=1`, `/${secret}/api/refs`, `/${secret}/api/archive/main.zip`, `/${secret}/api-browser/tree/main/`]) {
      expect(await ask('GET', path, mine.token), path).toEqual({ status: 403, message: reach });
    }
    const change = JSON.stringify({ branch: 'main', message: 'x', committer: { name: 'M', email: 'm@example.com' }, changes: [{ op: 'delete', path: 'README.md' }] });
    expect((await ask('POST', `/${secret}/api/commits`, mine.token, { type: 'application/json', data: change })).status).toBe(403);

    // Creating and deleting another project's repositories; importing one (an allowed import source) into one's own.
    expect((await ask('PUT', `/${b.project}/planted`, mine.token)).status).toBe(403);
    expect((await ask('DELETE', `/${secret}`, mine.token)).status).toBe(403);
    const resolve = await ask('POST', `/${site}/api/import/resolve`, mine.token, { type: 'application/json', data: JSON.stringify({ source: { owner: b.project, repo: 'secret' } }) });
    expect(resolve).toEqual({ status: 403, message: reach });

    // Nothing of it happened, and the owner's token still reads its repository whole, LFS object included.
    const own = join(git.home, `own-${randomBytes(3).toString('hex')}`);
    await git.run(['clone', '-q', remote(secret, theirs.token), own]);
    expect((await readFile(join(own, 'model.bin'))).equals(secretBytes)).toBe(true);
    expect(await git.out(['ls-remote', '--heads', remote(secret, theirs.token)])).not.toContain('evil');
    // And this project's token is good for its own repository.
    expect(await git.out(['ls-remote', '--heads', remote(site, mine.token)])).toContain('refs/heads/main');
  });

  it('refuses a token once revoked, once expired, and once its maker left the project', async () => {
    const site = `${a.project}/tokens-${randomBytes(3).toString('hex')}`;
    const writer = await mintGitToken(a, ['write']);
    expect((await ask('PUT', `/${site}`, writer.token)).status).toBe(201);
    const refs = `/${site}/info/refs?service=git-upload-pack`;

    // Revoked through the API: refused as soon as cw-git's watch delivers it.
    const revoked = await mintGitToken(a, ['read']);
    expect((await ask('GET', refs, revoked.token)).status).toBe(200);
    const res = await fetch(`${api!.url}/v1/projects/${a.project}/git-tokens/${revoked.id}`, { method: 'DELETE', headers: { authorization: `Bearer ${a.token}` } });
    expect(res.status).toBe(204);
    const refused = await eventually(
      'the revoked token refused',
      () => ask('GET', refs, revoked.token),
      (r) => r.status !== 200,
      10_000,
    );
    expect(refused).toEqual({ status: 401, message: `The git token ${revoked.id} was revoked.` });
    expect((await git.run(['ls-remote', remote(site, revoked.token)], { okCodes: [128] })).stderr).toMatch(/Authentication failed/);

    // Expired: works until its expiry, refused from then on (cw-git's clock moved past it).
    const expiring = await mintGitToken(a, ['read'], { expires_in_seconds: 3600 });
    expect((await git.run(['ls-remote', remote(site, expiring.token)])).code).toBe(0);
    clockOffsetMs = 3601_000;
    try {
      const expired = await ask('GET', refs, expiring.token);
      expect(expired.status).toBe(401);
      expect(expired.message).toMatch(new RegExp(`^The git token ${expiring.id} expired at `));
      expect((await git.run(['ls-remote', remote(site, expiring.token)], { okCodes: [128] })).stderr).toMatch(/Authentication failed/);
      expect((await ask('GET', refs, writer.token)).status).toBe(200);
    } finally {
      clockOffsetMs = 0;
    }

    // A member's token stops when the owner removes them from the project.
    const visitor = await createMemberAccount(kubeconfig, 'gitc');
    await inviteAndAccept(api!.url, a, visitor);
    const theirs = await eventually(
      'the new member’s token',
      () => mintGitToken(visitor, ['read'], {}, a.project),
      () => true,
    );
    expect((await ask('GET', refs, theirs.token)).status).toBe(200);
    expect((await fetch(`${api!.url}/v1/projects/${a.project}/members/${visitor.user}`, { method: 'DELETE', headers: { authorization: `Bearer ${a.token}` } })).status).toBe(204);
    const left = await eventually(
      'the former member’s token refused',
      () => ask('GET', refs, theirs.token),
      (r) => r.status !== 200,
      10_000,
    );
    expect(left).toEqual({ status: 401, message: `The git token ${theirs.id} was made by ${visitor.user}, who is no longer a member of project ${a.project}.` });
  });
});

describe('cw git credentials', () => {
  it('makes a plain git clone and push work for a signed-in person, with one token kept for the project', async () => {
    const repo = `${a.project}/helped-${randomBytes(3).toString('hex')}`;
    const content = randomBytes(50_000);
    await repoWithLfs(repo, (await mintGitToken(a, ['write'])).token, content);

    // A person signed in with `cw login` (its config file: the API and their token), with git of their own.
    const person = await GitClient.create();
    const user: CwUser = { home: person.home, configFile: join(person.home, '.config', 'cloudwright', 'config.json'), env: { HOME: person.home, XDG_CONFIG_HOME: join(person.home, '.config') } };
    mkdirSync(dirname(user.configFile), { recursive: true });
    writeFileSync(user.configFile, JSON.stringify({ api_url: api!.url, servers: { [api!.url]: { token: a.token } } }), { mode: 0o600 });
    const setup = await cw(user, ['git', 'setup']);
    expect(setup.code, setup.stderr).toBe(0);
    expect(setup.stdout).toContain(`git now asks cw for credentials of ${gitUrl()}`);
    expect(await person.out(['config', '--global', '--get-all', `credential.${gitUrl()}.helper`])).toMatch(/git credentials$/);

    // No credentials in the URL, none in the environment: the helper answers.
    const clone = join(person.home, 'clone');
    await person.run(['clone', '-q', `${gitUrl()}/${repo}`, clone]);
    expect(await readFile(join(clone, 'README.md'), 'utf8')).toBe(`${repo}\n`);
    expect((await readFile(join(clone, 'model.bin'))).equals(content)).toBe(true);
    await person.commit(clone, 'from the helper', { 'NOTES.md': 'pushed without a password\n' });
    await person.run(['push', '-q', 'origin', 'main'], { cwd: clone });

    // It made one git token for the project, kept in the config file (0600) and used again by the next command.
    const stored = JSON.parse(readFileSync(user.configFile, 'utf8')) as { servers: Record<string, { git_url?: string; git_tokens?: Record<string, { token: string; token_id: string }> }> };
    const kept = stored.servers[api!.url]?.git_tokens?.[a.project];
    expect(kept?.token).toMatch(/^cwg_/);
    expect(stored.servers[api!.url]?.git_url).toBe(gitUrl());
    expect(statSync(user.configFile).mode & 0o777).toBe(0o600);
    const listed = async () =>
      ((await (await fetch(`${api!.url}/v1/projects/${a.project}/git-tokens`, { headers: { authorization: `Bearer ${a.token}` } })).json()) as { tokens: { token_id: string; description: string }[] })
        .tokens;
    expect((await listed()).filter((t) => t.token_id === kept?.token_id)).toEqual([expect.objectContaining({ description: 'cw git credentials (read+write)' })]);
    const helperTokens = (await listed()).filter((t) => t.description.startsWith('cw git credentials')).length;
    await person.run(['fetch', '-q', 'origin'], { cwd: clone });
    expect((await listed()).filter((t) => t.description.startsWith('cw git credentials')).length).toBe(helperTokens);

    // Another project's repository: the API makes no token of it for this person, so git has none to send.
    const refused = await person.run(['clone', '-q', `${gitUrl()}/${b.project}/secret`, join(person.home, 'not-mine')], { okCodes: [128] });
    expect(refused.stderr).toMatch(/could not read Username|Authentication failed|terminal prompts disabled/);
  });
});
