// `cw users` end to end: the real command-line tool (cli/dist) against a real cw-api child process and the test
// control plane, as an administrator would run it, and as an ordinary member who may not.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { User } from '../src/apis/v1alpha1/user.ts';
import { loadKubeConnection, objectClient } from '../src/kube/index.ts';
import { USERS } from '../src/platform/resources.ts';
import { createMemberAccount, mintTestToken, type MemberAccount } from './harness/accounts.ts';
import { startApiServer, type ApiServer } from './harness/api-server.ts';
import { cw, type CwUser, newCwUser } from './harness/cli.ts';

const kubeconfig = inject('kubeconfig');
const users = objectClient<User>(loadKubeConnection(kubeconfig), USERS);
const suffix = randomBytes(3).toString('hex');
const admin = `cli-admin-${suffix}`;
const alice = `cli-alice-${suffix}`;
let api: ApiServer | undefined;
let member: MemberAccount;
let operator: CwUser;

beforeAll(async () => {
  member = await createMemberAccount(kubeconfig, 'cli-users');
  await users.create({ metadata: { name: admin }, spec: { displayName: 'Test administrator', admin: true } });
  const { token } = await mintTestToken(kubeconfig, admin, ['admin', 'projects:read'], 'cli users test');
  api = await startApiServer({ kubeconfig, stateDir: inject('stateDir') });
  operator = newCwUser(api.url, { CW_TOKEN: token });
}, 120_000);

afterAll(async () => {
  await api?.stop();
  await users.delete('', admin).catch(() => undefined);
  await users.delete('', alice).catch(() => undefined);
});

describe('cw users', () => {
  it('creates a user, lists and shows them, sets their password from stdin so they can sign in, and deletes them', async () => {
    const created = await cw(operator, ['users', 'create', alice, '--name', 'Alice Liddell', '--email', `${alice}@example.com`]);
    expect(created.code, created.stderr).toBe(0);
    expect(created.stdout).toContain(`Created user ${alice}`);

    const listed = await cw(operator, ['users', 'ls', '--json']);
    expect(listed.code, listed.stderr).toBe(0);
    expect((JSON.parse(listed.stdout) as { users: { user_id: string }[] }).users.map((u) => u.user_id)).toEqual(expect.arrayContaining([admin, alice, member.user]));
    const table = await cw(operator, ['users', 'ls']);
    expect(table.stdout).toMatch(new RegExp(`${alice}\\s+Alice Liddell\\s+${alice}@example.com\\s+no`));

    const shown = await cw(operator, ['users', 'get', alice]);
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.stdout).toMatch(/Name:\s+Alice Liddell/);

    const password = `correct horse ${suffix}`;
    // As a Windows editor saves it: a byte order mark, the line ended by CRLF. Neither is part of the password.
    const set = await cw(operator, ['users', 'set-password', alice], { input: `\ufeff${password}\r\n` });
    expect(set.code, set.stderr).toBe(0);
    const signIn = await fetch(`${api!.url}/v1/session`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ user: alice, password }) });
    expect(signIn.status).toBe(200);

    const removed = await cw(operator, ['users', 'rm', alice, '--yes']);
    expect(removed.code, removed.stderr).toBe(0);
    expect((await cw(operator, ['users', 'get', alice])).code).toBe(1);
  });

  it('says what is wrong in one line, with a non-zero exit', async () => {
    const empty = await cw(operator, ['users', 'set-password', admin], { input: '' });
    expect([empty.code, empty.stderr.trim()]).toEqual([2, expect.stringContaining('no password on stdin')]);
    const latin1 = await cw(operator, ['users', 'set-password', admin], { input: Buffer.from('p\xe4ssword-of-latin-1', 'latin1') });
    expect([latin1.code, latin1.stderr]).toEqual([2, expect.stringContaining('not UTF-8')]);
    const lines = await cw(operator, ['users', 'set-password', admin], { input: 'one\ntwo\n' });
    expect([lines.code, lines.stderr]).toEqual([2, expect.stringContaining('more than one line')]);
    const short = await cw(operator, ['users', 'set-password', admin], { input: 'short\n' });
    expect([short.code, short.stderr]).toEqual([1, expect.stringMatching(/12 characters/)]);
    const bad = await cw(operator, ['users', 'create', 'Not_A_Name']);
    expect(bad.code).toBe(1);
    expect(bad.stderr.trim().split('\n')).toHaveLength(1);
    // Refused without a confirmation: no terminal to ask on.
    expect((await cw(operator, ['users', 'rm', admin])).code).toBe(2);
    // The last owner of a project cannot leave it: one line, from the API's 409.
    const leaving = await cw(newCwUser(api!.url, { CW_TOKEN: member.token }), ['projects', 'leave', member.project, '--yes']);
    expect([leaving.code, leaving.stderr]).toEqual([1, expect.stringContaining('at least one owner')]);
    // A member's token has no admin scope: the API's 403 names it.
    const asMember = await cw(newCwUser(api!.url, { CW_TOKEN: member.token }), ['users', 'ls']);
    expect([asMember.code, asMember.stderr]).toEqual([1, expect.stringContaining('admin')]);
  });
});
