// `cw` end to end: the real command-line tool (cli/dist) run as a subprocess against a real stack — cw-api,
// cw-operator, a cw-runtime, cw-db, moto's Route 53 and a parent zone for `test.` — the way a person at a
// terminal or a script uses it. Every `--json` answer is checked against the API's OpenAPI schemas; what
// the commands did is checked where it shows (the runtime's answers, SQL results, refused tokens); errors are
// one line with the right exit code; a confirmation prompt is answered under a pseudo-terminal.
import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { startParentZoneServer, type ParentZoneServer } from '../src/dns/parent-zone-server.ts';
import { send } from '../runtime-server/engine/testing/http.ts';
import { createMemberAccount, createProjectNamespace, createUserAccount, type MemberAccount } from './harness/accounts.ts';
import { startApiServer, type ApiServer } from './harness/api-server.ts';
import { cw, cwJson, type CwUser, expectOneLineError, newCwUser, startCw } from './harness/cli.ts';
import { startDatabaseServer, type DatabaseServer } from './harness/database-server.ts';
import { dnsTestEnv } from './harness/dns-env.ts';
import { freePort, type Service } from './harness/process.ts';
import { startRoute53Proxy, type Route53Proxy } from './harness/route53-proxy.ts';
import { BASE_DOMAIN, s3Env, startOperator, startRuntime, type Runtime } from './harness/runtime-stack.ts';
import { certifyDomain, certifyHostname } from './harness/tls-certificates.ts';

const kubeconfig = inject('kubeconfig');
const running: Service[] = [];
let api: ApiServer | undefined;
let db: DatabaseServer | undefined;
let parent: ParentZoneServer | undefined;
/** Between the platform and moto's Route 53: holds zone creations when a test asks. */
let route53: Route53Proxy | undefined;
let runtime: Runtime;
let member: MemberAccount;
/** A script's `cw`: the member's token in CW_TOKEN, the project in CW_PROJECT. */
let script: CwUser;

beforeAll(async () => {
  member = await createMemberAccount(kubeconfig, 'cli');
  // The operator below watches the project's namespace only, so its Project controller does not run.
  await createProjectNamespace(kubeconfig, member.project);
  parent = await startParentZoneServer({ suffix: 'test' });
  route53 = await startRoute53Proxy(inject('route53Endpoint'));
  db = await startDatabaseServer({ name: 'cw-db-cli' });
  const dns = { CW_DNS_PARENT_SERVER: parent.address, CW_DNS_RESOLVER: parent.address, CW_DNS_TIMEOUT_MS: '2000', CW_RUNTIME_BASE_DOMAIN: BASE_DOMAIN, CW_RUNTIME_DNS_IPV4: '127.0.0.1' };
  const started = await Promise.all([
    startRuntime('cw-runtime-cli', member.project, running),
    // POD_NAMESPACE: the runtime replica reports in the project's namespace here, where the API reads app logs.
    startApiServer({ kubeconfig, stateDir: inject('stateDir'), env: { ...s3Env(), ...dnsTestEnv(route53.endpoint), ...dns, CW_DB_URL: db.url, POD_NAMESPACE: member.project } }),
    startOperator(member.project, running, { ...dnsTestEnv(route53.endpoint), ...dns, ...db.clientEnv, CW_DB_USAGE_REFRESH_SECONDS: '1' }),
  ]);
  [runtime, api] = started;
  script = newCwUser(api.url, { CW_TOKEN: member.token, CW_PROJECT: member.project });
}, 180_000);

afterAll(async () => {
  await Promise.all([api?.stop(), db?.stop(), ...running.map((s) => s.stop(5_000))]);
  await parent?.stop();
  await route53?.stop();
});

function apiUrl(): string {
  if (!api) throw new Error('cw-api is not running');
  return api.url;
}

/** GET `path` on the API with `token`: the status (200 or the refusal). */
async function statusWith(token: string, path = '/v1/user'): Promise<number> {
  const res = await fetch(`${apiUrl()}${path}`, { headers: { authorization: `Bearer ${token}` } });
  await res.body?.cancel();
  return res.status;
}

/** What the runtime answers for `host` right now. */
async function served(host: string): Promise<string> {
  const res = await send(runtime.port, host);
  return `${res.status} ${res.body}`;
}

describe('signing in', () => {
  /** Starts `cw login`, reads the code it prints, and approves (or denies) it as the member. */
  async function signIn(user: CwUser, decision: 'approve' | 'deny', args: string[] = []): Promise<{ code: number; stdout: string; stderr: string }> {
    const login = startCw(user, ['login', '--no-browser', ...args]);
    const [, userCode] = await login.waitFor(/one-time code: ([A-Z0-9]{4}-[A-Z0-9]{4})[\s\S]*approve the code/);
    expect(login.output()).toContain(`${apiUrl()}/device?user_code=${userCode}`);
    const res = await fetch(`${apiUrl()}/v1/device/${decision}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${member.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ user_code: userCode }),
    });
    expect(res.status, await res.text()).toBeLessThan(300);
    return login.done;
  }

  it('logs in with the device flow, stores the token 0600 without printing it, replaces it on a new login, and logs out by revoking it', { timeout: 60_000 }, async () => {
    const person = newCwUser(apiUrl());
    const refused = newCwUser(apiUrl());
    const storedToken = (user: CwUser): string => (JSON.parse(readFileSync(user.configFile, 'utf8')) as { servers: Record<string, { token: string }> }).servers[apiUrl()]?.token ?? '';
    // A narrow sign-in, without even projects:read (which `whoami` needs), still signs in.
    const [narrow, denied] = await Promise.all([signIn(person, 'approve', ['--scopes', 'apps:read']), signIn(refused, 'deny')]);
    expect(narrow.code, narrow.stderr).toBe(0);
    expect(narrow.stdout).toContain(`Signed in to ${apiUrl()} (scopes: apps:read)`);
    const first = storedToken(person);
    expect((await cw(person, ['apps', 'ls', '-p', member.project])).code).toBe(0);
    // The scopes asked for are all the token has: writing is refused.
    expectOneLineError(await cw(person, ['apps', 'create', 'nope', '-p', member.project]), 1, /lacks the scope apps:write/);
    expectOneLineError(await cw(person, ['whoami']), 1, /lacks the scope projects:read/);

    expect(denied.code).toBe(1);
    expect(denied.stderr.trimEnd().split('\n').at(-1)).toBe('error: the sign-in was denied in the browser');

    // Signing in again replaces the stored token and revokes the one it replaces.
    const approved = await signIn(person, 'approve', ['--scopes', 'projects:read,apps:read']);
    expect(approved.code, approved.stderr).toBe(0);
    expect(approved.stdout).toContain(`Signed in to ${apiUrl()} as ${member.user}`);
    const stored = JSON.parse(readFileSync(person.configFile, 'utf8')) as { api_url: string };
    const token = storedToken(person);
    expect(token).toMatch(/^cwt_/);
    expect(token).not.toBe(first);
    expect(await statusWith(first)).toBe(401);
    expect(stored.api_url).toBe(apiUrl());
    expect(statSync(person.configFile).mode & 0o777).toBe(0o600);
    expect(approved.stdout + approved.stderr).not.toContain(token);

    const me = await cwJson<{ user: { user_id: string }; token: { scopes: string[] } }>(person, ['whoami'], { method: 'GET', path: '/v1/user' });
    expect(me.user.user_id).toBe(member.user);
    expect(me.token.scopes.sort()).toEqual(['apps:read', 'projects:read']);

    const out = await cw(person, ['logout']);
    expect(out.code, out.stderr).toBe(0);
    expect(await statusWith(token)).toBe(401);
    expect(readFileSync(person.configFile, 'utf8')).not.toContain(token);
    expectOneLineError(await cw(person, ['whoami']), 1, /not signed in to .*cw login/);
  });
});

describe('projects and members', () => {
  it('creates a project, makes it the default, manages its members and deletes it', { timeout: 60_000 }, async () => {
    const other = await createMemberAccount(kubeconfig, 'cli-peer');
    const id = `cli-made-${randomBytes(3).toString('hex')}`;
    const created = await cwJson<{ project: { project_id: string; role: string } }>(script, ['projects', 'create', id, '--name', 'Made by cw'], { method: 'POST', path: '/v1/projects', status: 201 });
    expect(created.project).toMatchObject({ project_id: id, role: 'owner' });

    // A person without CW_PROJECT: `projects use` stores the default for this API URL.
    const person = newCwUser(apiUrl(), { CW_TOKEN: member.token });
    expectOneLineError(await cw(person, ['apps', 'ls']), 2, /choose a project with --project/);
    expect((await cw(person, ['projects', 'use', id])).code).toBe(0);
    // With CW_PROJECT set to another project, it stores the default and says the variable still wins.
    const shadowed = await cw(newCwUser(apiUrl(), { CW_TOKEN: member.token, CW_PROJECT: 'another' }), ['projects', 'use', id]);
    expect(shadowed.code).toBe(0);
    expect(shadowed.stderr).toContain('CW_PROJECT=another is set in this shell and still wins');
    // Adding someone invites them: they are not a member until they accept.
    const added = await cw(person, ['projects', 'members', 'add', other.user, '--role', 'member']);
    expect(added.code, added.stderr).toBe(0);
    expect(added.stdout + added.stderr).toContain(`Invited ${other.user} to ${id} as a member`);
    expect((await cw(person, ['projects', 'members', 'ls'])).stdout).toMatch(new RegExp(`${other.user}\\s+member\\s+invited by ${member.user}`));
    const invitee = newCwUser(apiUrl(), { CW_TOKEN: other.token });
    const waiting = await cwJson<{ invitations: { project_id: string; role: string; invited_by: string }[] }>(invitee, ['projects', 'invitations', 'ls'], {
      method: 'GET',
      path: '/v1/user/invitations',
    });
    expect(waiting.invitations).toEqual([expect.objectContaining({ project_id: id, role: 'member', invited_by: member.user })]);
    expectOneLineError(await cw(invitee, ['projects', 'use', id]), 1, /does not exist or you are not a member/);
    // Someone with no project of their own is told of the invitation, not put into the project.
    const newcomer = await createUserAccount(kubeconfig, 'cli-new');
    await cw(person, ['projects', 'members', 'add', newcomer.user]);
    expectOneLineError(await cw(newCwUser(apiUrl(), { CW_TOKEN: newcomer.token }), ['apps', 'ls']), 2, new RegExp(`no project yet, and an invitation to ${id}`));
    expect((await cw(person, ['projects', 'members', 'rm', newcomer.user, '--yes'])).stdout).toContain(`Withdrew the invitation of ${newcomer.user}`);
    // Accepting shows the role it agrees to, and refuses another.
    expectOneLineError(await cw(invitee, ['projects', 'invitations', 'accept', id]), 2, new RegExp(`not confirmed: Join ${id} \\(Made by cw\\) as a member, invited by ${member.user}\\?`));
    expectOneLineError(await cw(invitee, ['projects', 'invitations', 'accept', id, '--role', 'owner', '--yes']), 1, new RegExp(`offers the role member, not owner`));
    const joined = await cw(invitee, ['projects', 'invitations', 'accept', id, '--yes']);
    expect(joined.code, joined.stderr).toBe(0);
    expect(joined.stdout + joined.stderr).toContain(`Joined ${id} as a member`);
    expectOneLineError(await cw(invitee, ['projects', 'invitations', 'accept', id, '--yes']), 1, new RegExp(`no invitation to ${id} is waiting for you`));
    // A member offered the owner role is promoted, not joining: told so, without the hint to make it the default.
    expect((await cw(person, ['projects', 'members', 'add', other.user, '--role', 'owner'])).stdout).toContain(`Invited ${other.user} to ${id} as an owner`);
    expectOneLineError(await cw(invitee, ['projects', 'invitations', 'accept', id]), 2, new RegExp(`not confirmed: Become an owner of ${id} \\(Made by cw\\), invited by ${member.user}\\?`));
    const promoted = await cw(invitee, ['projects', 'invitations', 'accept', id, '--yes']);
    expect(promoted.code, promoted.stderr).toBe(0);
    expect(promoted.stdout + promoted.stderr).toContain(`You are now an owner of ${id}`);
    expect(promoted.stdout + promoted.stderr).not.toMatch(/Joined|cw projects use/);
    const members = await cwJson<{ members: { user_id: string; role: string }[] }>(person, ['projects', 'members', 'ls'], { method: 'GET', path: '/v1/projects/{projectId}/members' });
    expect(members.members).toEqual(
      expect.arrayContaining([
        { user_id: member.user, role: 'owner' },
        { user_id: other.user, role: 'owner' },
      ]),
    );
    expect((await cw(person, ['projects', 'members', 'rm', other.user, '--yes'])).code).toBe(0);
    const after = await cwJson<{ members: { user_id: string }[] }>(person, ['projects', 'members', 'ls'], { method: 'GET', path: '/v1/projects/{projectId}/members' });
    expect(after.members.map((m) => m.user_id)).toEqual([member.user]);
    // Offered the owner role when not a member (the project answers them 403), they join as an owner (review-161 F1).
    expect((await cw(person, ['projects', 'members', 'add', other.user, '--role', 'owner'])).code).toBe(0);
    const joinedAsOwner = await cw(invitee, ['projects', 'invitations', 'accept', id, '--yes']);
    expect(joinedAsOwner.code, joinedAsOwner.stderr).toBe(0);
    expect(joinedAsOwner.stdout + joinedAsOwner.stderr).toContain(`Joined ${id} as an owner`);
    expect((await cw(person, ['projects', 'members', 'rm', other.user, '--yes'])).code).toBe(0);
    // The current project, with what it uses of its quotas (nothing deployed yet).
    const shown = await cw(person, ['projects', 'get']);
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.stdout).toMatch(new RegExp(`ID:\\s+${id}`));
    expect(shown.stdout).toMatch(/Stored builds:\s+0 B of 2\.1 GB/);
    const viewed = await cwJson<{ project: { usage: { stored_builds_bytes: number } } }>(person, ['projects', 'get', id], { method: 'GET', path: '/v1/projects/{projectId}' });
    expect(viewed.project.usage.stored_builds_bytes).toBe(0);

    const removed = await cw(person, ['projects', 'rm', id, '--yes']);
    expect(removed.code, removed.stderr).toBe(0);
    expectOneLineError(await cw(person, ['projects', 'use', id]), 1, /does not exist or you are not a member/);
  });
});

describe('apps, deploys, environment and rollback', () => {
  it('deploys a worker directory, serves it as soon as cw returns, redeploys with new environment, rolls back and deletes', { timeout: 120_000 }, async () => {
    const dir = join(script.home, 'greeter');
    mkdirSync(dir, { recursive: true });
    const worker = (version: string): void => writeFileSync(join(dir, 'worker.js'), `export default { fetch: (req, env) => new Response(\`${version} \${env.GREETING ?? 'hello'}\`) };\n`);
    const www = `www.${member.project}.${BASE_DOMAIN}`;
    const appHost = `greeter.${member.project}.${BASE_DOMAIN}`;
    const deployment = { method: 'POST', path: '/v1/projects/{projectId}/apps/{appId}/deployments' };

    worker('v1');
    const first = await cwJson<{ build_id: string; hosts: string[] }>(script, ['deploy', dir, '--hostnames', www], deployment);
    expect(first.hosts).toEqual(expect.arrayContaining([appHost, www]));
    // cw waited until the runtime served the build: the very next request gets it.
    expect(await served(www)).toBe('200 v1 hello');

    const set = await cw(script, ['env', 'set', 'GREETING=bonjour', '--app', 'greeter']);
    expect(set.code, set.stderr).toBe(0);
    const env = await cwJson<{ environment: Record<string, { value: string }> }>(script, ['env', 'ls', '--app', 'greeter'], {
      method: 'GET',
      path: '/v1/projects/{projectId}/apps/{appId}/environment',
    });
    expect(env.environment.GREETING?.value).toBe('bonjour');
    // Over an existing, world-readable .env: the values may be secrets, so the new file is 0600 whatever was there.
    writeFileSync(join(script.home, '.env'), 'OLD=1\n', { mode: 0o644 });
    const pulled = await cw(script, ['env', 'pull', '--app', 'greeter', '--yes']);
    expect(pulled.code, pulled.stderr).toBe(0);
    expect(readFileSync(join(script.home, '.env'), 'utf8')).toContain("GREETING='bonjour'");
    expect(statSync(join(script.home, '.env')).mode & 0o777).toBe(0o600);

    // Deploy options are per deploy: without --hostnames this one binds none, and cw says what it dropped.
    worker('v2');
    const human = await cw(script, ['deploy', dir, '--max-concurrent-requests', '20']);
    expect(human.code, human.stderr).toBe(0);
    expect(human.stdout).toMatch(/Deployed build b-[0-9a-f]{16} to greeter and it is served/);
    expect(human.stdout).not.toContain(www);
    expect(human.stderr).toContain(`No longer served on ${www}: this deploy's --hostnames did not name it.`);
    expect(await served(appHost)).toBe('200 v2 bonjour');
    expect(await served(www)).toMatch(/^404 /);

    const builds = await cwJson<{ builds: { build_id: string; active: boolean; deploy_options?: unknown }[] }>(script, ['builds', 'ls', '--app', 'greeter'], {
      method: 'GET',
      path: '/v1/projects/{projectId}/apps/{appId}/builds',
    });
    expect(builds.builds).toHaveLength(2);
    expect(builds.builds[0]).toMatchObject({ active: true, deploy_options: { hostnames: [], max_concurrent_requests: 20 } });
    expect(builds.builds[1]).toMatchObject({ build_id: first.build_id, active: false, deploy_options: { hostnames: [www] } });
    const table = await cw(script, ['builds', 'ls', '--app', 'greeter']);
    expect(table.stdout).toMatch(/HOST NAMES.*MAX REQUESTS/);
    expect(table.stdout).toMatch(new RegExp(`${first.build_id}.*${www.replace(/\./g, '\\.')}.*default`));

    // The rollback serves the first build as it was deployed: on www again, with the default bound.
    const back = await cwJson<{ build_id: string; hosts: string[] }>(script, ['rollback', '--app', 'greeter'], { method: 'POST', path: '/v1/projects/{projectId}/apps/{appId}/rollbacks' });
    expect(back.build_id).toBe(first.build_id);
    expect(back.hosts).toEqual([appHost, www]);
    expect(await served(appHost)).toBe('200 v1 bonjour');
    expect(await served(www)).toBe('200 v1 bonjour');

    const apps = await cwJson<{ apps: { app_id: string; ready: boolean; serving_build_id?: string }[] }>(script, ['apps', 'ls'], { method: 'GET', path: '/v1/projects/{projectId}/apps' });
    expect(apps.apps).toEqual([expect.objectContaining({ app_id: 'greeter', ready: true, serving_build_id: first.build_id })]);
    await cwJson(script, ['apps', 'get', 'greeter'], { method: 'GET', path: '/v1/projects/{projectId}/apps/{appId}' });
    // HTTPS settings: set by flags, an --hsts-* flag alone keeping the HSTS settings it does not name.
    const secured = await cwJson<{ app: { https: unknown } }>(script, ['apps', 'update', 'greeter', '--https-redirect', '--hsts-max-age', '600', '--hsts-include-subdomains'], {
      method: 'PATCH',
      path: '/v1/projects/{projectId}/apps/{appId}',
    });
    expect(secured.app.https).toEqual({ redirect_http: true, hsts: { max_age_seconds: 600, include_subdomains: true, preload: false } });
    expectOneLineError(await cw(script, ['apps', 'update', 'greeter', '--hsts-preload']), 1, /preload needs include_subdomains true and a max_age_seconds of at least 31536000/);
    expectOneLineError(await cw(script, ['apps', 'update', 'greeter']), 2, /nothing to change/);
    expect((await cw(script, ['apps', 'get', 'greeter'])).stdout).toMatch(/HSTS:?\s+max-age=600; includeSubDomains/);

    const removed = await cwJson<{ status: string; deleted: { build_artifacts: number; environment_keys: number } }>(script, ['apps', 'rm', 'greeter', '--yes'], {
      method: 'DELETE',
      path: '/v1/projects/{projectId}/apps/{appId}',
    });
    expect(removed.deleted).toMatchObject({ build_artifacts: 2, environment_keys: 1 });
    // Gone means every runtime replica has let it go (the RuntimeApp's finalizer waits for their reports): the very
    // next request is a 404 (before, it was once still served under CI load).
    expect(removed.status).toBe('deleted');
    expect(await served(appHost)).toMatch(/^404 /);
  });

  it('rolls a deploy out in steps with the real operator and runtime: cw says so, shows the step, and a promote finishes it', { timeout: 120_000 }, async () => {
    const dir = join(script.home, 'stepper');
    mkdirSync(dir, { recursive: true });
    const host = `stepper.${member.project}.${BASE_DOMAIN}`;
    writeFileSync(join(dir, 'worker.js'), 'export default { fetch: () => new Response("v1") };\n');
    expect((await cw(script, ['deploy', dir, '--app', 'stepper'])).code).toBe(0);
    const set = await cw(script, ['rollout', 'set', 'stepper', '--steps', '25:manual']);
    expect(set.code, set.stderr).toBe(0);
    await expect.poll(async () => (await cw(script, ['rollout', 'status', 'stepper'])).stdout, { timeout: 30_000 }).toMatch(/Stable build:\s+b-[0-9a-f]{16}/);

    writeFileSync(join(dir, 'worker.js'), 'export default { fetch: () => new Response("v2") };\n');
    const deployed = await cw(script, ['deploy', dir, '--app', 'stepper']);
    expect(deployed.code, deployed.stderr).toBe(0);
    expect(deployed.stdout).toMatch(/Deployed build b-[0-9a-f]{16} to stepper: it is rolling out, 25% of traffic on it now/);
    expect(deployed.stderr).toContain('Follow the rollout with `cw rollout status stepper --watch`.');
    const status = await cw(script, ['rollout', 'status', 'stepper']);
    expect(status.stdout).toMatch(/Phase:\s+Paused/);
    expect(status.stdout).toMatch(/Weight:\s+25% on the new build/);
    // Keyless requests land on both builds at the weight; forced ones on the one they name.
    const forced = await send(runtime.port, host, '/', { headers: { 'cw-rollout-build': 'canary' } });
    expect(forced.body).toBe('v2');

    const promoted = await cw(script, ['rollout', 'promote', 'stepper']);
    expect(promoted.code, promoted.stderr).toBe(0);
    await expect.poll(async () => (await cw(script, ['rollout', 'status', 'stepper'])).stdout, { timeout: 30_000 }).toMatch(/Phase:\s+Succeeded/);
    await expect.poll(() => served(host), { timeout: 30_000 }).toBe('200 v2');
  });

  it('follows an app’s logs: console lines and exceptions as they happen, then the recent ones filtered, as text and JSON', { timeout: 60_000 }, async () => {
    const dir = join(script.home, 'logger');
    mkdirSync(dir, { recursive: true });
    writeFileSync(
      join(dir, 'worker.js'),
      `export default { fetch(req) { const u = new URL(req.url); const p = u.pathname; console.log('logger serving', p, u.searchParams.get('said') ?? ''); if (p === '/boom') throw new Error('logger exploded'); return new Response('ok'); } };\n`,
    );
    const deployed = await cw(script, ['deploy', dir]);
    expect(deployed.code, deployed.stderr).toBe(0);
    const host = `logger.${member.project}.${BASE_DOMAIN}`;

    // Nothing is recorded before anyone follows: the empty answer is no entries and a hint, not an error.
    const none = await cw(script, ['logs', 'logger', '--no-follow']);
    expect([none.code, none.stdout, none.stderr.trim()], none.stderr).toEqual([0, '', expect.stringMatching(/^No recent requests of logger: .*cw logs logger/)]);

    const following = startCw(script, ['logs', 'logger', '--recent', '0']);
    await following.waitFor(/Following logger on 1 runtime replica/);
    await send(runtime.port, host, '/hi');
    await send(runtime.port, host, '/boom');
    await following.waitFor(/GET http:\/\/logger\.\S+\/hi 200[\s\S]*log {3}logger serving \/hi/);
    await following.waitFor(/GET http:\/\/logger\.\S+\/boom --- exception[\s\S]*throw Error: logger exploded/);
    // What a client made the app log is shown as text: no escape sequence reaches the terminal, no forged entry line.
    await send(runtime.port, host, '/said?said=%1B%5D0%3Bpwned%07%1B%5B2K%0D%0A2026-01-01T00%3A00%3A00Z%20GET%20%2Fadmin%20200');
    await following.waitFor(/log {3}logger serving \/said \\x1b\]0;pwned\\x07\\x1b\[2K\\x0d\n {8}2026-01-01T00:00:00Z GET \/admin 200/);
    expect(following.output()).not.toContain('\u001b]0;');
    following.interrupt();
    await following.done;

    const recent = await cw(script, ['logs', 'logger', '--no-follow', '--json', '--status', 'exception']);
    expect(recent.code, recent.stderr).toBe(0);
    const lines = recent.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { request: { url: string }; exceptions: { message: string }[] });
    expect(lines.map((e) => [new URL(e.request.url).pathname, e.exceptions[0]?.message])).toEqual([['/boom', 'logger exploded']]);
    expectOneLineError(await cw(script, ['logs', 'logger', '--status', 'teapot']), 2, /unknown --status teapot/);
    expectOneLineError(await cw(script, ['logs', 'nope', '--no-follow']), 1, /nope/);
    expect((await cw(script, ['apps', 'rm', 'logger', '--yes'])).code).toBe(0);
  });

  it('answers every mistake with one line and a non-zero exit, and changes nothing', async () => {
    expectOneLineError(await cw(script, ['apps', 'get', 'missing']), 1, /has no app missing/);
    expectOneLineError(await cw(script, ['apps', 'rm', '..', '--yes']), 2, /"\.\." is not a valid app id/);
    for (const help of [['help'], ['help', 'apps'], ['deploy', '--help']]) expect((await cw(script, help)).code).toBe(0);
    expectOneLineError(await cw(script, ['apps', 'ls', '-p', 'someone-elses']), 1, /does not exist or you are not a member/);
    expectOneLineError(await cw(newCwUser(apiUrl()), ['apps', 'ls']), 1, /^error: not signed in to .* `cw login`/);
    expectOneLineError(await cw(script, ['apps', 'ls', '--token', 'cwt_bogus']), 1, /malformed.*cw login/);
    const closed = await freePort();
    expectOneLineError(await cw(script, ['apps', 'ls', '--api-url', `http://127.0.0.1:${closed}`]), 1, new RegExp(`cannot reach the API at http://127\\.0\\.0\\.1:${closed} \\(ECONNREFUSED\\)`));
    expectOneLineError(await cw(script, ['deploy', join(script.home, 'no-such-dir')]), 2, /no such file or directory/);
    expectOneLineError(await cw(script, ['env', 'set', 'NOEQUALS', '--app', 'x']), 2, /expected KEY=VALUE/);
    expectOneLineError(await cw(script, ['env', 'set', 'A=1']), 2, /pass --app/);
    expectOneLineError(await cw(script, ['deploy', '--max-concurrent-requests', '0', '--app', 'x']), 2, /1 to 10000/);
    const typo = await cw(script, ['apps', 'lss']);
    expect(typo.code).toBe(2);
    expect(typo.stderr).toBe("error: unknown command 'lss'\n(Did you mean ls?)\n");
    // Destructive commands do not guess without a terminal to ask on.
    expectOneLineError(await cw(script, ['projects', 'rm', member.project]), 2, /not confirmed.*--yes/);
    const projects = await cwJson<{ projects: { project_id: string }[] }>(script, ['projects', 'ls'], { method: 'GET', path: '/v1/projects' });
    expect(projects.projects.map((p) => p.project_id)).toContain(member.project);
  });

  it('asks before deleting on a terminal: "n" keeps the app, "y" deletes it', { timeout: 60_000 }, async () => {
    await cwJson(script, ['apps', 'create', 'prompted'], { method: 'POST', path: '/v1/projects/{projectId}/apps', status: 201 });
    const declined = startCw(script, ['apps', 'rm', 'prompted'], { pty: true });
    await declined.waitFor(/Delete app prompted/);
    declined.type('n');
    const no = await declined.done;
    expect(no.code, no.stdout).toBe(1);
    expect(no.stdout).toContain('Cancelled: nothing was changed.');
    await cwJson(script, ['apps', 'get', 'prompted'], { method: 'GET', path: '/v1/projects/{projectId}/apps/{appId}' });

    const accepted = startCw(script, ['apps', 'rm', 'prompted'], { pty: true });
    await accepted.waitFor(/Delete app prompted/);
    accepted.type('y');
    const yes = await accepted.done;
    expect(yes.code, yes.stdout).toBe(0);
    expect(yes.stdout).toContain('Deleted app prompted');
    expectOneLineError(await cw(script, ['apps', 'get', 'prompted']), 1, /has no app prompted/);
  });
});

describe('on a terminal', () => {
  it('shows upload progress and colour on a terminal, and neither with NO_COLOR or when piped', { timeout: 60_000 }, async () => {
    const dir = join(script.home, 'tty');
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'worker.js'), 'export default { fetch: () => new Response("tty") };\n');
    const green = '\u001b[32m✓';
    // oxlint-disable-next-line no-control-regex -- an ANSI colour sequence is what this test looks for
    const colourCode = /\u001b\[\d+(;\d+)*m/;

    const terminal = startCw(script, ['deploy', dir, '--app', 'tty'], { pty: true });
    const shown = await terminal.done;
    expect(shown.code, shown.stdout).toBe(0);
    expect(shown.stdout).toMatch(/Uploading \[█+\] 100% \| \d+ B of \d+ B \| /);
    expect(shown.stdout).toContain(`${green}\u001b[39m Deployed build`);

    const plain = await startCw(script, ['deploy', dir, '--app', 'tty'], { pty: true, env: { NO_COLOR: '1' } }).done;
    expect(plain.code, plain.stdout).toBe(0);
    expect(plain.stdout).toContain('✓ Deployed build');
    expect(plain.stdout).not.toContain('Uploading');
    expect(plain.stdout).not.toMatch(colourCode);

    const piped = await cw(script, ['deploy', dir, '--app', 'tty']);
    expect(piped.stdout + piped.stderr).not.toMatch(colourCode);
    expect(piped.stderr).not.toContain('Uploading');
  });
});

describe('domains, records and host names', () => {
  it('adds a domain, explains the delegation, goes managed, writes records and serves an app on a managed host name', { timeout: 120_000 }, async () => {
    const domain = `cli-${randomBytes(3).toString('hex')}.test`;
    const added = await cwJson<{ domain: { status: string; nameservers: string[] } }>(script, ['domains', 'add', domain], { method: 'POST', path: '/v1/projects/{projectId}/domains', status: 201 });
    expect(added.domain.status).toBe('pending_delegation');

    const pending = await cw(script, ['domains', 'check', domain]);
    expect(pending.code, pending.stderr).toBe(0);
    expect(pending.stdout).toContain('pending_delegation');
    expect(pending.stdout).toContain(`The parent zone lists no nameservers for ${domain}`);
    for (const ns of added.domain.nameservers) expect(pending.stdout).toContain(ns);
    expectOneLineError(await cw(script, ['records', 'add', domain, 'api', 'A', '192.0.2.10']), 1, /pending_delegation/);

    parent?.delegate(domain, added.domain.nameservers);
    const checked = await cwJson<{ domain: { status: string } }>(script, ['domains', 'check', domain], { method: 'POST', path: '/v1/projects/{projectId}/domains/{domain}/delegation-check' });
    expect(checked.domain.status).toBe('managed');
    await cwJson(script, ['domains', 'ls'], { method: 'GET', path: '/v1/projects/{projectId}/domains' });
    const noCertificate = await cwJson<{ domain: { tls: unknown } }>(script, ['domains', 'get', domain], { method: 'GET', path: '/v1/projects/{projectId}/domains/{domain}' });
    expect(noCertificate.domain.tls).toEqual({ status: 'none', not_after: null, issuer: null, last_error: null, next_attempt_at: null });
    // The domain's certificate as the certificate controller leaves a failed renewal: `get` says why, and when next.
    const refusal = { reason: 'CAAForbidden', message: `A CAA record of ${domain} allows only another CA.`, at: '2026-11-29T10:00:00Z' };
    await certifyDomain(kubeconfig, member.project, domain, {
      state: 'Renewing',
      notAfter: '2026-12-10T00:00:00Z',
      issuer: 'Pebble Intermediate CA',
      lastError: refusal,
      nextAttemptAt: '2026-11-29T11:00:00Z',
    });
    await expect.poll(async () => (await cw(script, ['domains', 'get', domain])).stdout, { timeout: 15_000 }).toContain(refusal.message);
    const shownDomain = (await cw(script, ['domains', 'get', domain])).stdout;
    for (const line of [/Certificate: +renewing/, /Expires: +2026-12-10T00:00:00Z/, /Issuer: +Pebble Intermediate CA/, /Next attempt: +2026-11-29T11:00:00Z/]) expect(shownDomain).toMatch(line);

    const record = await cwJson<{ record: { record_id: string; status: string } }>(script, ['records', 'add', domain, 'api', 'A', '192.0.2.10', '--ttl', '120'], {
      method: 'POST',
      path: '/v1/projects/{projectId}/domains/{domain}/records',
      status: 201,
    });
    expect(record.record.status).toBe('applied');
    const changed = await cwJson<{ record: { values: string[]; ttl: number } }>(script, ['records', 'set', domain, record.record.record_id, '--value', '192.0.2.20'], {
      method: 'PUT',
      path: '/v1/projects/{projectId}/domains/{domain}/records/{recordId}',
    });
    expect(changed.record).toMatchObject({ values: ['192.0.2.20'], ttl: 120 });
    const listed = await cwJson<{ records: { record_id: string }[] }>(script, ['records', 'ls', domain], { method: 'GET', path: '/v1/projects/{projectId}/domains/{domain}/records' });
    expect(listed.records.map((r) => r.record_id)).toContain(record.record.record_id);
    await cwJson(script, ['records', 'rm', domain, record.record.record_id, '--yes'], { method: 'DELETE', path: '/v1/projects/{projectId}/domains/{domain}/records/{recordId}' });

    const dir = join(script.home, 'shop');
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'worker.js'), 'export default { fetch: () => new Response("shop") };\n');
    expect((await cw(script, ['deploy', dir])).code).toBe(0);
    const host = `www.${domain}`;
    const attached = await cwJson<{ managed_dns?: { status: string } }>(script, ['hostnames', 'attach', host, '--managed', '--app', 'shop'], {
      method: 'POST',
      path: '/v1/projects/{projectId}/apps/{appId}/domains',
    });
    expect(attached.managed_dns?.status).toBe('applied');
    const active = await cw(script, ['hostnames', 'finalize', host, '--app', 'shop']);
    expect(active.stdout).toContain(`${host} is active`);
    const hostnames = await cwJson<{ domains: { domain: string; status: string }[] }>(script, ['hostnames', 'ls', '--app', 'shop'], {
      method: 'GET',
      path: '/v1/projects/{projectId}/apps/{appId}/domains',
    });
    expect(hostnames.domains).toEqual([expect.objectContaining({ domain: host, status: 'active' })]);
    // Its certificate, written as the certificate controller would: a TLS column with the expiry, and --json as the API says.
    await certifyHostname(kubeconfig, member.project, host, { state: 'Issued', notAfter: '2027-02-27T10:30:00Z', issuer: 'Pebble Intermediate CA' });
    await expect.poll(async () => (await cw(script, ['hostnames', 'ls', '--app', 'shop'])).stdout, { timeout: 15_000 }).toContain('issued until 2027-02-27');
    expect((await cw(script, ['hostnames', 'ls', '--app', 'shop'])).stdout).toMatch(/HOSTNAME +MODE +STATUS +TLS +WHY +ATTACHED/);
    const certified = await cwJson<{ domains: { tls: unknown }[] }>(script, ['hostnames', 'ls', '--app', 'shop'], { method: 'GET', path: '/v1/projects/{projectId}/apps/{appId}/domains' });
    expect(certified.domains[0]?.tls).toEqual({ status: 'issued', not_after: '2027-02-27T10:30:00Z', issuer: 'Pebble Intermediate CA', last_error: null, next_attempt_at: null });
    await expect.poll(() => served(host)).toBe('200 shop');

    const detached = await cw(script, ['hostnames', 'rm', host, '--app', 'shop', '--yes']);
    expect(detached.code, detached.stderr).toBe(0);
    expect(detached.stdout).toContain(`Detached ${host} from shop`);
    const left = await cwJson<{ domains: unknown[] }>(script, ['hostnames', 'ls', '--app', 'shop'], { method: 'GET', path: '/v1/projects/{projectId}/apps/{appId}/domains' });
    expect(left.domains).toEqual([]);
    await expect.poll(() => served(host), { timeout: 10_000 }).not.toBe('200 shop');
    expectOneLineError(await cw(script, ['hostnames', 'rm', host, '--app', 'shop', '--yes']), 1, /is not attached to app shop/);

    expect((await cw(script, ['apps', 'rm', 'shop', '--yes'])).code).toBe(0);
    const gone = await cwJson<{ domain: { status: string } }>(script, ['domains', 'rm', domain, '--yes'], { method: 'DELETE', path: '/v1/projects/{projectId}/domains/{domain}' });
    expect(gone.domain.status).toBe('deleted');
  });
});

describe('a platform slower than the API waits', () => {
  it("`domains add` waits on for the nameservers when the zone is not created within the API's bound (202), and says so", { timeout: 120_000 }, async () => {
    const domain = `slow-${randomBytes(3).toString('hex')}.test`;
    if (!route53) throw new Error('no Route 53 proxy');
    route53.holdZoneCreates = true;
    const add = startCw(script, ['domains', 'add', domain]);
    try {
      await add.waitFor(/still being created: waiting for its nameservers/, 30_000);
    } finally {
      route53.releaseHeld();
    }
    const done = await add.done;
    expect(done.code, done.stderr).toBe(0);
    expect(done.stdout).toContain(`Added ${domain}`);
    const { domain: shown } = await cwJson<{ domain: { nameservers: string[] } }>(script, ['domains', 'get', domain], { method: 'GET', path: '/v1/projects/{projectId}/domains/{domain}' });
    expect(shown.nameservers.length).toBeGreaterThan(0);
    for (const ns of shown.nameservers) expect(done.stdout).toContain(ns);
    expect((await cw(script, ['domains', 'rm', domain, '--yes'])).code).toBe(0);
  });
});

describe('databases', () => {
  it('creates a database (token once), runs SQL through execute and a piped shell, shows usage, rotates and deletes', { timeout: 120_000 }, async () => {
    const created = await cwJson<{ database_token?: string; database_url?: string }>(script, ['db', 'create', 'notes'], { method: 'POST', path: '/v1/projects/{projectId}/databases', status: 201 });
    expect(created.database_token).toMatch(/^cwdb_/);

    // `db execute --json` prints the SQL results (no API answer to check against a schema): exact shapes instead.
    const write = await cw(script, ['db', 'execute', 'notes', 'create table notes(id integer primary key, body text)', "insert into notes(body) values ('one'), ('two')", '--json']);
    expect(write.code, write.stderr).toBe(0);
    expect((JSON.parse(write.stdout) as { results: { rows_affected: number; last_insert_rowid: string }[] }).results[1]).toMatchObject({ rows_affected: 2, last_insert_rowid: '2' });
    const rows = await cw(script, ['db', 'execute', 'notes', 'select body from notes order by id', '--json']);
    expect(rows.code, rows.stderr).toBe(0);
    expect(JSON.parse(rows.stdout)).toEqual({ results: [{ columns: ['body'], rows: [['one'], ['two']], rows_affected: 0, last_insert_rowid: null }] });

    const shell = await cw(script, ['db', 'shell', 'notes'], { input: "insert into notes(body)\n values ('three'); select count(*) as n from notes;\n.tables\n" });
    expect(shell.code, shell.stderr).toBe(0);
    expect(shell.stdout).toMatch(/^n\s*\n3\s*$/m);
    expect(shell.stdout).toMatch(/^notes\s*$/m);
    // One execute is one statement (cw-db refuses a second rather than drop it); `db execute` takes each as an argument.
    const many = await cw(script, ['db', 'execute', 'notes', "insert into notes(body) values ('lost?'); delete from notes"]);
    expect(many.code).toBe(1);
    expect(many.stderr).toContain('more than one statement');
    const failing = await cw(script, ['db', 'shell', 'notes'], { input: 'select * from nowhere;\n' });
    expect(failing.code).toBe(1);
    expect(failing.stderr).toContain('no such table: nowhere');

    const readOnly = await cw(script, ['db', 'execute', 'notes', "insert into notes(body) values ('four')", '--read-only']);
    expect(readOnly.code).toBe(1);
    expect(readOnly.stderr).toMatch(/readonly|read-only/i);
    const reads = await cw(script, ['db', 'execute', 'notes', 'select 1', 'select count(*) from notes', '--read-only']);
    expect(reads.code, reads.stderr).toBe(0);

    // Ctrl-C at the prompt drops the statement being typed: the half-typed delete never runs.
    const prompt = startCw(script, ['db', 'shell', 'notes'], { pty: true });
    await prompt.waitFor(/notes> /);
    prompt.type('delete from notes\r');
    await prompt.waitFor(/\.\.\.> /);
    prompt.type('\u0003');
    await prompt.waitFor(/\^C/);
    prompt.type('select count(*) as n from notes;\r');
    // The column header is bold on a terminal.
    // oxlint-disable-next-line no-control-regex -- the terminal's escape sequences are part of what is matched
    await prompt.waitFor(/\u001b\[1mn\u001b\[22m\r\n3\r\n/);
    prompt.type('.quit\r');
    expect((await prompt.done).code).toBe(0);

    // Usage is refreshed by the operator (every second here): wait for the three rows written to show.
    const usage = async (): Promise<number> =>
      (await cwJson<{ database: { usage: { rows_written: number } } }>(script, ['db', 'get', 'notes'], { method: 'GET', path: '/v1/projects/{projectId}/databases/{database}' })).database.usage
        .rows_written;
    await expect.poll(usage, { timeout: 45_000 }).toBeGreaterThanOrEqual(3);
    await cwJson(script, ['db', 'ls'], { method: 'GET', path: '/v1/projects/{projectId}/databases' });

    // Point-in-time restore into a new database, at the newest restorable instant once it covers the last write
    // (commits reach the bucket within about a second; the window is refreshed every second here).
    type Detail = { database: { restore_window: { latest: string } | null; usage: { last_write_at: string | null } } };
    const detail = (): Promise<Detail> => cwJson<Detail>(script, ['db', 'get', 'notes'], { method: 'GET', path: '/v1/projects/{projectId}/databases/{database}' });
    const covered = (d: Detail): boolean => Date.parse(d.database.restore_window?.latest ?? '') >= Date.parse(d.database.usage.last_write_at ?? '');
    // Bounded for a loaded CI machine (a build on the chart's node may run beside this test).
    await expect.poll(async () => covered(await detail()), { timeout: 45_000 }).toBe(true);
    const { database } = await detail();
    const restored = await cwJson<{ created: boolean }>(script, ['db', 'restore', 'notes', '--at', database.restore_window?.latest ?? '', '--to', 'notes-copy'], {
      method: 'POST',
      path: '/v1/projects/{projectId}/databases',
      status: 201,
    });
    expect(restored.created).toBe(true);
    const copy = await cw(script, ['db', 'execute', 'notes-copy', 'select count(*) as n from notes', '--json']);
    expect(copy.code, copy.stderr).toBe(0);
    expect((JSON.parse(copy.stdout) as { results: { rows: unknown[][] }[] }).results[0]?.rows).toEqual([[3]]);

    // In place: the deleted rows come back under the same name, and the printed command undoes it.
    const count = async (): Promise<unknown> => {
      const res = await cw(script, ['db', 'execute', 'notes', 'select count(*) as n from notes', '--json']);
      expect(res.code, res.stderr).toBe(0);
      return (JSON.parse(res.stdout) as { results: { rows: unknown[][] }[] }).results[0]?.rows[0]?.[0];
    };
    expect((await cw(script, ['db', 'execute', 'notes', 'delete from notes'])).code).toBe(0);
    const inPlace = await cw(script, ['db', 'restore', 'notes', '--in-place', '--to', database.restore_window?.latest ?? '', '--yes']);
    expect(inPlace.code, inPlace.stderr).toBe(0);
    expect(await count()).toBe(3);
    const undo = /To undo: cw (db restore notes --in-place --to \S+)/.exec(inPlace.stdout + inPlace.stderr)?.[1];
    expect(undo, inPlace.stdout + inPlace.stderr).toBeDefined();
    expect(inPlace.stdout).toMatch(/Undo point: \d{4}-/);
    expect((await cw(script, [...(undo ?? '').split(' '), '--yes'])).code).toBe(0);
    expect(await count()).toBe(0);

    const rotated = await cwJson<{ database_token: string }>(script, ['db', 'rotate', 'notes', '--yes'], { method: 'POST', path: '/v1/projects/{projectId}/databases/{database}/tokens/rotate' });
    expect(rotated.database_token).toMatch(/^cwdb_/);
    expect(rotated.database_token).not.toBe(created.database_token);
    const query = (token: string | undefined): Promise<Response> =>
      fetch(`${apiUrl()}/v1/projects/${member.project}/databases/notes/query`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: '{"sql":"select 1"}',
      });
    expect((await query(created.database_token)).status).toBe(401);
    expect((await query(rotated.database_token)).status).toBe(200);
    // cw's own stored query token went with the rotation: the next execute gets a new one and works.
    expect((await cw(script, ['db', 'execute', 'notes', 'select 1'])).code).toBe(0);

    expect((await cw(script, ['db', 'rm', 'notes', '--yes'])).code).toBe(0);
    expectOneLineError(await cw(script, ['db', 'get', 'notes']), 1, /notes/);
  });

  it('binds a database to an app, lists the binding without a token, and unbinds it', { timeout: 60_000 }, async () => {
    expect((await cw(script, ['db', 'create', 'shelf'])).code).toBe(0);
    expect((await cw(script, ['apps', 'create', 'reader'])).code).toBe(0);
    const bound = await cwJson<{ binding: { variables: { url: string; token: string } } }>(script, ['apps', 'bind-db', 'reader', 'shelf', '--full'], {
      method: 'PUT',
      path: '/v1/projects/{projectId}/apps/{appId}/database-bindings/{name}',
    });
    expect(bound.binding.variables).toStrictEqual({ url: 'DATABASE_URL', token: 'DATABASE_TOKEN' });
    const listed = await cw(script, ['apps', 'bindings', 'reader']);
    expect(listed.stdout).toMatch(/DATABASE\s+shelf\s+full\s+DATABASE_URL, DATABASE_TOKEN/);
    expect((await cw(script, ['apps', 'get', 'reader'])).stdout).toMatch(/Databases:\s+DATABASE: shelf, full/);
    const env = await cw(script, ['env', 'ls', '--app', 'reader']);
    expect(env.stdout).toContain('(URL of database shelf)');
    expect(env.stdout).toContain('(linked: shelf, full token)');
    expect(env.stdout).not.toContain('cwdb_');
    expectOneLineError(await cw(script, ['apps', 'bind-db', 'reader', 'shelf', '--full', '--read-only']), 2, /not both/);
    expect((await cw(script, ['apps', 'unbind-db', 'reader', '--yes'])).code).toBe(0);
    expect((await cw(script, ['apps', 'bindings', 'reader'])).stdout).toContain('reader has no database bindings');
    expectOneLineError(await cw(script, ['apps', 'unbind-db', 'reader', '--yes']), 1, /no database binding DATABASE/);
  });
});

describe('audit', () => {
  it('shows who changed what in the project, newest first, filtered and a page at a time, without the values', { timeout: 60_000 }, async () => {
    expect((await cw(script, ['apps', 'create', 'audited'])).code).toBe(0);
    const set = await cw(script, ['env', 'set', 'PASSWORD=hunter2-cli-audit', '--app', 'audited']);
    expect(set.code, set.stderr).toBe(0);
    const trail = { method: 'GET', path: '/v1/projects/{projectId}/audit' };
    const page = await cwJson<{ entries: { action: string; resource: { id: string | null }; status: number; request_id: string; principal: { user_id: string } }[] }>(
      script,
      ['audit', '--type', 'environment_variable', '--limit', '1'],
      trail,
    );
    expect(page.entries).toEqual([
      expect.objectContaining({ action: 'environment_variable.set', resource: expect.objectContaining({ id: 'PASSWORD' }), status: 200, principal: expect.objectContaining({ user_id: member.user }) }),
    ]);
    const human = await cw(script, ['audit', '--limit', '2']);
    expect(human.code, human.stderr).toBe(0);
    expect(human.stdout).toMatch(/environment_variable\.set +PASSWORD \(app audited\) +200/);
    expect(human.stdout).toMatch(/app\.create +audited +201/);
    expect(human.stderr).toMatch(/More: cw audit --cursor [0-9]{13}-[0-9a-f]{16}/);
    expect(human.stdout + (await cw(script, ['audit', '--json'])).stdout).not.toContain('hunter2-cli-audit');
    expectOneLineError(await cw(script, ['audit', '--type', 'secrets']), 2, /secrets/);
  });
});

describe('tokens', () => {
  it('creates a token shown once, lists it without its value, and revokes it', async () => {
    const created = await cwJson<{ access_token: string; token: { token_id: string } }>(script, ['tokens', 'create', '--scopes', 'projects:read', '--description', 'cli test'], {
      method: 'POST',
      path: '/v1/tokens',
      status: 201,
    });
    expect(await statusWith(created.access_token)).toBe(200);
    const listed = await cw(script, ['tokens', 'ls', '--json']);
    expect(listed.stdout).toContain(created.token.token_id);
    expect(listed.stdout).not.toContain(created.access_token);
    await cwJson(script, ['tokens', 'ls'], { method: 'GET', path: '/v1/tokens' });
    const revoked = await cw(script, ['tokens', 'revoke', created.token.token_id, '--yes']);
    expect(revoked.code, revoked.stderr).toBe(0);
    expect(await statusWith(created.access_token)).toBe(401);
  });
});
