import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_PENDING_INVITATIONS, type Project } from '../../src/apis/v1alpha1/project.ts';
import { objectClient } from '../../src/kube/index.ts';
import { PROJECTS } from '../../src/platform/resources.ts';
import { platformApp, unique, type PlatformApp } from './testing/platform-app.ts';
import { MAX_INVITATIONS_PER_PERSON } from '../services/projects.ts';

let platform: PlatformApp;
let owner: string;
let ownerToken: string;

beforeAll(async () => {
  platform = await platformApp();
  owner = await platform.createUser();
  ownerToken = await platform.tokenFor(owner, ['projects:write', 'audit:read']);
});
afterAll(() => platform.close());

const as = (token: string) => ({ authorization: `Bearer ${token}` });
const invite = (project: string, user: string, role = 'member', token = ownerToken) =>
  platform.app.inject({ method: 'PUT', url: `/v1/projects/${project}/members/${user}`, headers: as(token), payload: { role } });
const accept = (project: string, token: string, role = 'member') => platform.app.inject({ method: 'POST', url: `/v1/user/invitations/${project}/accept`, headers: as(token), payload: { role } });
const decline = (project: string, token: string) => platform.app.inject({ method: 'DELETE', url: `/v1/user/invitations/${project}`, headers: as(token) });
const mine = async (token: string) => (await platform.app.inject({ method: 'GET', url: '/v1/user/invitations', headers: as(token) })).json().invitations as { project_id: string; role: string }[];
const pending = async (project: string, token = ownerToken) =>
  (await platform.app.inject({ method: 'GET', url: `/v1/projects/${project}/invitations`, headers: as(token) })).json().invitations as { user_id: string; role: string }[];
const canRead = async (project: string, token: string) => (await platform.app.inject({ method: 'GET', url: `/v1/projects/${project}`, headers: as(token) })).statusCode;
const invitee = async () => {
  const user = await platform.createUser();
  return { user, token: await platform.tokenFor(user, 'projects:write') };
};

describe('invitations', () => {
  it('makes nobody a member without their consent: an owner’s add is an invitation, accepted by the invitee', async () => {
    const project = await platform.createProject(owner);
    const carol = await invitee();
    const offered = await invite(project, carol.user, 'owner');
    expect(offered.statusCode).toBe(202);
    expect(offered.json().invitation).toMatchObject({ project_id: project, user_id: carol.user, role: 'owner', invited_by: owner });
    const { invited_at, expires_at } = offered.json().invitation as { invited_at: string; expires_at: string };
    expect(Date.parse(expires_at) - Date.parse(invited_at)).toBe(7 * 24 * 3600_000);
    // Invited, not a member: the project is neither readable nor listed for them, and nobody can act for them in it.
    expect(await canRead(project, carol.token)).toBe(403);
    expect((await platform.app.inject({ method: 'GET', url: '/v1/projects', headers: as(carol.token) })).json().projects).toEqual([]);
    expect(await mine(carol.token)).toEqual([expect.objectContaining({ project_id: project, role: 'owner' })]);
    expect(await pending(project)).toEqual([expect.objectContaining({ user_id: carol.user, role: 'owner' })]);

    const accepted = await accept(project, carol.token, 'owner');
    expect([accepted.statusCode, accepted.json()]).toEqual([200, { member: { user_id: carol.user, role: 'owner' } }]);
    expect(await canRead(project, carol.token)).toBe(200);
    expect(await mine(carol.token)).toEqual([]);
    expect(await pending(project)).toEqual([]);
    // Accepted once: a second accept finds nothing.
    expect((await accept(project, carol.token, 'owner')).statusCode).toBe(404);
    // The trail says who invited and who accepted.
    const trail = (await platform.app.inject({ method: 'GET', url: `/v1/projects/${project}/audit`, headers: as(ownerToken) })).json().entries as {
      action: string;
      principal: { user_id: string };
      details: Record<string, unknown>;
    }[];
    expect(trail.map((e) => [e.action, e.principal.user_id])).toEqual(
      expect.arrayContaining([
        ['member.set', owner],
        ['member.accept', carol.user],
      ]),
    );
    expect(trail.find((e) => e.action === 'member.set')?.details).toEqual({ role: 'owner', invited: true });
  });

  it('makes nobody an owner without their consent: promotion is an offer, an accept names the role it agrees to', async () => {
    const project = await platform.createProject(owner);
    const dave = await invitee();
    await invite(project, dave.user, 'owner');
    expect((await invite(project, dave.user, 'member')).statusCode).toBe(202);
    expect(await pending(project)).toEqual([expect.objectContaining({ user_id: dave.user, role: 'member' })]);
    // Renewed as owner while the invitee looks at "member": their accept of "member" is refused, not turned into owner.
    expect((await invite(project, dave.user, 'owner')).statusCode).toBe(202);
    const stale = await accept(project, dave.token, 'member');
    expect([stale.statusCode, stale.json().detail]).toEqual([409, expect.stringContaining('offers the role owner now, not member')]);
    expect(await canRead(project, dave.token)).toBe(403);
    await invite(project, dave.user, 'member');
    expect((await accept(project, dave.token, 'member')).json().member.role).toBe('member');
    // A member offered the owner role stays a member until they accept it (review-159 F1: promoted, then left holding it).
    const offered = await invite(project, dave.user, 'owner');
    expect([offered.statusCode, offered.json().invitation.role]).toEqual([202, 'owner']);
    const members = async () => (await platform.app.inject({ method: 'GET', url: `/v1/projects/${project}/members`, headers: as(ownerToken) })).json().members as unknown[];
    expect(await members()).toContainEqual({ user_id: dave.user, role: 'member' });
    expect((await accept(project, dave.token, 'owner')).json().member.role).toBe('owner');
    // Lowering a role needs no consent.
    const lowered = await invite(project, dave.user, 'member');
    expect([lowered.statusCode, lowered.json()]).toEqual([200, { member: { user_id: dave.user, role: 'member' } }]);
    // A member removed with an owner offer pending loses the offer too: it would let them back in as owner.
    expect((await invite(project, dave.user, 'owner')).statusCode).toBe(202);
    expect((await platform.app.inject({ method: 'DELETE', url: `/v1/projects/${project}/members/${dave.user}`, headers: as(ownerToken) })).statusCode).toBe(204);
    expect(await pending(project)).toEqual([]);
    expect((await accept(project, dave.token, 'owner')).statusCode).toBe(404);
    expect(await canRead(project, dave.token)).toBe(403);
  });

  it('lets an invitation stand only while its inviter is an owner', async () => {
    const project = await platform.createProject(owner);
    const [coOwner, alt] = [await invitee(), await invitee()];
    await invite(project, coOwner.user, 'owner');
    await accept(project, coOwner.token, 'owner');
    expect((await invite(project, alt.user, 'owner', coOwner.token)).statusCode).toBe(202);
    expect((await platform.app.inject({ method: 'DELETE', url: `/v1/projects/${project}/members/${coOwner.user}`, headers: as(ownerToken) })).statusCode).toBe(204);
    expect(await pending(project)).toEqual([]);
    expect((await accept(project, alt.token, 'owner')).statusCode).toBe(404);
    expect(await canRead(project, alt.token)).toBe(403);
  });

  it('lets the invitee decline and an owner withdraw; a member who is not an owner cannot withdraw', async () => {
    const project = await platform.createProject(owner);
    const [erin, frank, member] = [await invitee(), await invitee(), await invitee()];
    await invite(project, member.user);
    await accept(project, member.token, 'member');
    await invite(project, erin.user);
    await invite(project, frank.user);
    expect((await decline(project, erin.token)).statusCode).toBe(204);
    expect((await accept(project, erin.token)).statusCode).toBe(404);
    const withdrawByMember = await platform.app.inject({ method: 'DELETE', url: `/v1/projects/${project}/invitations/${frank.user}`, headers: as(member.token) });
    expect(withdrawByMember.statusCode).toBe(403);
    // Members see what is pending; owners withdraw it.
    expect((await pending(project, member.token)).map((i) => i.user_id)).toEqual([frank.user]);
    expect((await platform.app.inject({ method: 'DELETE', url: `/v1/projects/${project}/invitations/${frank.user}`, headers: as(ownerToken) })).statusCode).toBe(204);
    expect((await platform.app.inject({ method: 'DELETE', url: `/v1/projects/${project}/invitations/${frank.user}`, headers: as(ownerToken) })).statusCode).toBe(404);
    expect((await accept(project, frank.token)).statusCode).toBe(404);
    expect(await canRead(project, erin.token)).toBe(403);
    expect(await canRead(project, frank.token)).toBe(403);
  });

  it('answers an owner’s invitation of an unknown user as any other (no user-id oracle); an administrator’s add is at once', async () => {
    const project = await platform.createProject(owner);
    const ghost = await invite(project, unique('ghost'));
    expect(ghost.statusCode).toBe(202);
    // An id no User could have (a label past 63 characters) is refused as a bad request, not stored (found by schemathesis).
    expect((await invite(project, `0.${'0'.repeat(64)}`)).statusCode).toBe(400);
    const admin = await platform.createUser({ admin: true });
    const adminToken = await platform.tokenFor(admin, ['projects:write', 'admin']);
    expect((await invite(project, unique('ghost'), 'member', adminToken)).statusCode).toBe(404);
    const grace = await invitee();
    const added = await invite(project, grace.user, 'member', adminToken);
    expect([added.statusCode, added.json()]).toEqual([200, { member: { user_id: grace.user, role: 'member' } }]);
    expect(await canRead(project, grace.token)).toBe(200);
  });

  it('keeps an outsider from answering an invitation that is not theirs, and out of the project’s trail', async () => {
    const project = await platform.createProject(owner);
    const [heidi, mallory] = [await invitee(), await invitee()];
    await invite(project, heidi.user);
    expect((await accept(project, mallory.token)).statusCode).toBe(404);
    expect((await decline(project, mallory.token)).statusCode).toBe(404);
    expect((await platform.app.inject({ method: 'POST', url: `/v1/user/invitations/no-such-project-${unique('p')}/accept`, headers: as(mallory.token) })).statusCode).toBe(404);
    const trail = (await platform.app.inject({ method: 'GET', url: `/v1/projects/${project}/audit`, headers: as(ownerToken) })).json().entries as { principal: { user_id: string } }[];
    expect(trail.filter((e) => e.principal.user_id === mallory.user)).toEqual([]);
    expect(await pending(project)).toEqual([expect.objectContaining({ user_id: heidi.user })]);
  });

  it('lets an invitation lapse after 7 days, and bounds how many a project keeps pending', async () => {
    const project = await platform.createProject(owner);
    const ivan = await invitee();
    await invite(project, ivan.user);
    const projects = objectClient<Project>(platform.conn, PROJECTS);
    const stored = await projects.get('', project);
    const eightDaysAgo = new Date(Date.now() - 8 * 24 * 3600_000).toISOString();
    await projects.replace({ ...stored!, spec: { ...stored!.spec, invitations: stored!.spec.invitations!.map((i) => ({ ...i, invitedAt: eightDaysAgo })) } });
    await expect.poll(() => pending(project), { timeout: 10_000, interval: 20 }).toEqual([]);
    expect(await mine(ivan.token)).toEqual([]);
    expect((await accept(project, ivan.token)).statusCode).toBe(404);

    for (let i = 0; i < MAX_PENDING_INVITATIONS; i++) expect((await invite(project, `someone-${i}`)).statusCode).toBe(202);
    const refused = await invite(project, 'one-too-many');
    expect(refused.statusCode).toBe(409);
    expect(refused.json().detail).toContain(`${MAX_PENDING_INVITATIONS} pending invitations`);
    // Renewing one already pending still works, and the lapsed one was dropped on the way.
    expect((await invite(project, 'someone-0', 'owner')).statusCode).toBe(202);
    expect((await projects.get('', project))?.spec.invitations?.some((i) => i.user === ivan.user)).toBe(false);
  });

  it(`bounds the invitations one person may have waiting at ${MAX_INVITATIONS_PER_PERSON}`, async () => {
    const [victim, flooder] = [await invitee(), await platform.createUser()];
    const projects = objectClient<Project>(platform.conn, PROJECTS);
    const invitedAt = new Date().toISOString();
    const flood = Array.from({ length: MAX_INVITATIONS_PER_PERSON }, () => unique('flood'));
    await Promise.all(
      flood.map((name) =>
        projects.create({
          metadata: { name },
          spec: { displayName: name, members: [{ user: flooder, role: 'owner' }], invitations: [{ user: victim.user, role: 'member', invitedBy: flooder, invitedAt }] },
        }),
      ),
    );
    try {
      await expect
        .poll(async () => (await platform.app.inject({ method: 'GET', url: '/v1/user/invitations?limit=1000', headers: as(victim.token) })).json().invitations.length, { timeout: 10_000 })
        .toBe(MAX_INVITATIONS_PER_PERSON);
      const project = await platform.createProject(owner);
      const refused = await invite(project, victim.user);
      expect([refused.statusCode, refused.json().detail]).toEqual([409, expect.stringContaining(`${MAX_INVITATIONS_PER_PERSON} invitations waiting`)]);
      // Answering one makes room.
      expect((await decline(flood[0]!, victim.token)).statusCode).toBe(204);
      expect((await invite(project, victim.user)).statusCode).toBe(202);
    } finally {
      await Promise.all(flood.map((name) => projects.delete('', name)));
    }
  });

  it('withdraws a deleted user’s invitations, so a later user of the same id finds none', async () => {
    const project = await platform.createProject(owner);
    const judy = await invitee();
    await invite(project, judy.user);
    const admin = await platform.createUser({ admin: true });
    const adminToken = await platform.tokenFor(admin, ['admin']);
    expect((await platform.app.inject({ method: 'DELETE', url: `/v1/users/${judy.user}`, headers: as(adminToken) })).statusCode).toBe(204);
    expect(await pending(project)).toEqual([]);
  });
});
