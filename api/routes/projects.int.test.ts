import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { RuntimeApp } from '../../src/apis/v1alpha1/runtime-app.ts';
import { NAMESPACES, objectClient, type KubeObject } from '../../src/kube/index.ts';
import { testConnection } from '../../src/kube/testing/test-kube.ts';
import { PROJECT_DOMAINS, PROJECTS, RUNTIME_APPS } from '../../src/platform/resources.ts';
import type { ProjectDomain } from '../../src/apis/v1alpha1/project-domain.ts';
import { platformApp, unique, type PlatformApp } from './testing/platform-app.ts';
import { MAX_PROJECTS_PER_OWNER } from '../services/projects.ts';
import { CREATED_BY_USER_ANNOTATION } from '../../src/apis/v1alpha1/project.ts';

let platform: PlatformApp;
let owner: string;
let other: string;
let ownerToken: string;
let otherToken: string;

beforeAll(async () => {
  platform = await platformApp();
  owner = await platform.createUser();
  other = await platform.createUser();
  ownerToken = await platform.tokenFor(owner, 'projects:write');
  otherToken = await platform.tokenFor(other, 'projects:write');
});
afterAll(() => platform.close());

const as = (token: string) => ({ authorization: `Bearer ${token}` });

describe('projects', () => {
  it(`lets a user own at most ${MAX_PROJECTS_PER_OWNER} projects (409 past that)`, async () => {
    const hoarder = await platform.createUser();
    const hoarderToken = await platform.tokenFor(hoarder, 'projects:write');
    const projects = objectClient<KubeObject & { spec: object }>(testConnection(), PROJECTS);
    const seeded = Array.from({ length: MAX_PROJECTS_PER_OWNER }, () => unique('owned'));
    await Promise.all(seeded.map((name) => projects.create({ metadata: { name }, spec: { displayName: name, members: [{ user: hoarder, role: 'owner' }] } })));
    try {
      await vi.waitFor(async () => {
        const listed = (await platform.app.inject({ method: 'GET', url: '/v1/projects', headers: as(hoarderToken) })).json().projects;
        expect(listed).toHaveLength(MAX_PROJECTS_PER_OWNER);
      });
      const res = await platform.app.inject({ method: 'POST', url: '/v1/projects', headers: as(hoarderToken), payload: { project_id: unique('one-more'), name: 'One more' } });
      expect(res.statusCode).toBe(409);
      expect(res.json().detail).toBe(
        `${hoarder} has created ${MAX_PROJECTS_PER_OWNER} projects, the most a user may (those handed over to others count too, until their owners delete them); delete one first.`,
      );
    } finally {
      await Promise.all(seeded.map((name) => projects.delete('', name)));
    }
  });

  it('counts creates sent at once one after another, so they cannot pass the bound together (found in review: 80 at once made 76)', async () => {
    const racer = await platform.createUser();
    const racerToken = await platform.tokenFor(racer, 'projects:write');
    const projects = objectClient<KubeObject & { spec: object }>(testConnection(), PROJECTS);
    const seeded = Array.from({ length: MAX_PROJECTS_PER_OWNER - 2 }, () => unique('raced'));
    await Promise.all(
      seeded.map((name) => projects.create({ metadata: { name, annotations: { [CREATED_BY_USER_ANNOTATION]: racer } }, spec: { displayName: name, members: [{ user: racer, role: 'owner' }] } })),
    );
    const asked = Array.from({ length: 6 }, () => unique('at-once'));
    try {
      await vi.waitFor(async () => expect((await platform.app.inject({ method: 'GET', url: '/v1/projects', headers: as(racerToken) })).json().projects).toHaveLength(seeded.length));
      const answers = await Promise.all(asked.map((id) => platform.app.inject({ method: 'POST', url: '/v1/projects', headers: as(racerToken), payload: { project_id: id, name: id } })));
      expect(answers.map((res) => res.statusCode).sort()).toEqual([201, 201, 409, 409, 409, 409]);
    } finally {
      await Promise.all([...seeded, ...asked].map((name) => projects.delete('', name).catch(() => {})));
    }
  });

  it('counts a project against the user who made it, not one it was handed to, who may leave it', async () => {
    const maker = await platform.createUser();
    const given = await platform.createUser();
    const [makerToken, givenToken] = await Promise.all([platform.tokenFor(maker, 'projects:write'), platform.tokenFor(given, 'projects:write')]);
    const projects = objectClient<KubeObject & { spec: object }>(testConnection(), PROJECTS);
    // Made through the API by `maker`, who then made `given` an owner and themselves a member.
    const seeded = Array.from({ length: MAX_PROJECTS_PER_OWNER }, () => unique('given'));
    await Promise.all(
      seeded.map((name) =>
        projects.create({
          metadata: { name, annotations: { [CREATED_BY_USER_ANNOTATION]: maker } },
          spec: {
            displayName: name,
            members: [
              { user: given, role: 'owner' },
              { user: maker, role: 'member' },
            ],
          },
        }),
      ),
    );
    try {
      await vi.waitFor(async () => expect((await platform.app.inject({ method: 'GET', url: '/v1/projects', headers: as(givenToken) })).json().projects).toHaveLength(MAX_PROJECTS_PER_OWNER));
      const own = unique('own');
      expect((await platform.app.inject({ method: 'POST', url: '/v1/projects', headers: as(givenToken), payload: { project_id: own, name: 'Mine' } })).statusCode).toBe(201);
      const more = await platform.app.inject({ method: 'POST', url: '/v1/projects', headers: as(makerToken), payload: { project_id: unique('more'), name: 'More' } });
      expect([more.statusCode, more.json().detail]).toEqual([
        409,
        `${maker} has created ${MAX_PROJECTS_PER_OWNER} projects, the most a user may (those handed over to others count too, until their owners delete them); delete one first.`,
      ]);
      // Any member may leave; the last owner may not (the project keeps one).
      const [first] = seeded;
      expect((await platform.app.inject({ method: 'DELETE', url: `/v1/projects/${first}/members/${maker}`, headers: as(makerToken) })).statusCode).toBe(204);
      expect((await platform.app.inject({ method: 'DELETE', url: `/v1/projects/${first}/members/${given}`, headers: as(givenToken) })).statusCode).toBe(409);
      await projects.delete('', own);
    } finally {
      await Promise.all(seeded.map((name) => projects.delete('', name)));
    }
  });

  it('creates a project the caller owns, visible at once, listed only for its members', async () => {
    const id = unique('web');
    const created = await platform.app.inject({ method: 'POST', url: '/v1/projects', headers: as(ownerToken), payload: { project_id: id, name: 'Web' } });
    expect(created.statusCode).toBe(201);
    expect(created.json().project).toMatchObject({ project_id: id, name: 'Web', role: 'owner' });
    // Who created it, for what is counted per person (push-to-deploy's build slots).
    const stored = await objectClient<KubeObject>(testConnection(), PROJECTS).get('', id);
    expect(stored?.metadata?.annotations?.[CREATED_BY_USER_ANNOTATION]).toBe(owner);

    const read = await platform.app.inject({ method: 'GET', url: `/v1/projects/${id}`, headers: as(ownerToken) });
    expect(read.statusCode).toBe(200);
    const mine = (await platform.app.inject({ method: 'GET', url: '/v1/projects', headers: as(ownerToken) })).json().projects;
    expect(mine.map((p: { project_id: string }) => p.project_id)).toContain(id);
    const theirs = (await platform.app.inject({ method: 'GET', url: '/v1/projects', headers: as(otherToken) })).json().projects;
    expect(theirs.map((p: { project_id: string }) => p.project_id)).not.toContain(id);
    expect((await platform.app.inject({ method: 'GET', url: `/v1/projects/${id}`, headers: as(otherToken) })).statusCode).toBe(403);

    const again = await platform.app.inject({ method: 'POST', url: '/v1/projects', headers: as(otherToken), payload: { project_id: id, name: 'Mine now' } });
    expect(again.statusCode).toBe(409);
    expect(again.json().detail).toContain(id);
  });

  it.each([
    [{ project_id: 'kube-system', name: 'x' }, 'reserved'],
    [{ project_id: 'cloudwright', name: 'x' }, 'reserved'],
    // Its part of the base domain would hold the runtime's DNS target, the name every custom host name points at.
    [{ project_id: 'runtime', name: 'x' }, "the platform's own host names"],
    [{ project_id: 'Not_A_Label', name: 'x' }, 'body.project_id'],
    [{ project_id: unique('p'), name: '' }, 'body.name'],
    [{ project_id: unique('p'), name: 'x', extra: true }, 'extra'],
    [{ project_id: unique('p'), name: 'x', owner: 'someone-else' }, 'administrator'],
  ])('refuses %j, naming %s', async (payload, mention) => {
    const res = await platform.app.inject({ method: 'POST', url: '/v1/projects', headers: as(ownerToken), payload });
    expect([400, 403]).toContain(res.statusCode);
    expect(res.json().detail).toContain(mention);
  });

  it('refuses a project id that names a namespace already in the cluster (409), leaving that namespace alone', async () => {
    const id = unique('taken');
    const namespaces = objectClient<KubeObject>(testConnection(), NAMESPACES);
    await namespaces.create({ metadata: { name: id } });
    const res = await platform.app.inject({ method: 'POST', url: '/v1/projects', headers: as(ownerToken), payload: { project_id: id, name: 'Taken' } });
    expect(res.statusCode).toBe(409);
    expect(res.json().detail).toContain(`namespace named ${id}`);
    expect((await namespaces.get('', id))?.metadata?.ownerReferences).toBeUndefined();
    await namespaces.delete('', id);
  });

  it('lists what the projects are now: a listing read before a change is not served after it', async () => {
    const id = await platform.createProject(owner);
    const listed = async (token: string) =>
      ((await platform.app.inject({ method: 'GET', url: '/v1/projects', headers: as(token) })).json().projects as { project_id: string; name: string }[]).find((p) => p.project_id === id);
    expect(await listed(otherToken)).toBeUndefined();
    await platform.app.inject({ method: 'PUT', url: `/v1/projects/${id}/members/${other}`, headers: as(ownerToken), payload: { role: 'member' } });
    expect(await listed(otherToken)).toBeUndefined();
    await platform.app.inject({ method: 'POST', url: `/v1/user/invitations/${id}/accept`, headers: as(otherToken), payload: { role: 'member' } });
    expect(await listed(otherToken)).toMatchObject({ project_id: id, role: 'member' });
    // A change made with kubectl reaches the listing through the watch.
    await objectClient<KubeObject & { spec: { displayName: string } }>(testConnection(), PROJECTS).patch('', id, { spec: { displayName: 'Renamed' } });
    await vi.waitFor(async () => expect(await listed(ownerToken)).toMatchObject({ name: 'Renamed' }), { timeout: 10_000, interval: 20 });
    await platform.app.inject({ method: 'DELETE', url: `/v1/projects/${id}/members/${other}`, headers: as(ownerToken) });
    expect(await listed(otherToken)).toBeUndefined();
  });

  it('manages members: owners only, and a project keeps an owner', async () => {
    const id = await platform.createProject(owner);
    const add = await platform.app.inject({ method: 'PUT', url: `/v1/projects/${id}/members/${other}`, headers: as(ownerToken), payload: { role: 'member' } });
    expect(add.statusCode).toBe(202);
    const accepted = await platform.app.inject({ method: 'POST', url: `/v1/user/invitations/${id}/accept`, headers: as(otherToken), payload: { role: 'member' } });
    expect(accepted.json()).toEqual({ member: { user_id: other, role: 'member' } });
    // Visible to the new member at once.
    expect((await platform.app.inject({ method: 'GET', url: `/v1/projects/${id}`, headers: as(otherToken) })).statusCode).toBe(200);
    // A member is not an owner.
    const promote = await platform.app.inject({ method: 'PUT', url: `/v1/projects/${id}/members/${other}`, headers: as(otherToken), payload: { role: 'owner' } });
    expect(promote.statusCode).toBe(403);
    const lastOwner = await platform.app.inject({ method: 'DELETE', url: `/v1/projects/${id}/members/${owner}`, headers: as(ownerToken) });
    expect(lastOwner.statusCode).toBe(409);
    const members = (await platform.app.inject({ method: 'GET', url: `/v1/projects/${id}/members`, headers: as(ownerToken) })).json().members;
    expect(members).toEqual(
      expect.arrayContaining([
        { user_id: owner, role: 'owner' },
        { user_id: other, role: 'member' },
      ]),
    );
    expect((await platform.app.inject({ method: 'DELETE', url: `/v1/projects/${id}/members/${other}`, headers: as(ownerToken) })).statusCode).toBe(204);
    expect((await platform.app.inject({ method: 'GET', url: `/v1/projects/${id}`, headers: as(otherToken) })).statusCode).toBe(403);
  });

  it('refuses to delete a project that still holds an app (409 naming it), then deletes it once empty', async () => {
    const id = await platform.createProject(owner);
    const conn = testConnection();
    await objectClient<KubeObject>(conn, NAMESPACES).create({ metadata: { name: id } });
    const apps = objectClient<RuntimeApp>(conn, RUNTIME_APPS);
    await apps.create({ metadata: { name: 'site', namespace: id }, spec: { displayName: 'site' } });

    const refused = await platform.app.inject({ method: 'DELETE', url: `/v1/projects/${id}`, headers: as(ownerToken) });
    expect(refused.statusCode, refused.body).toBe(409);
    expect(refused.json().detail).toContain('still has 1 app (site); delete them first.');

    await apps.delete(id, 'site');
    const deleted = await platform.app.inject({ method: 'DELETE', url: `/v1/projects/${id}`, headers: as(ownerToken) });
    expect(deleted.statusCode).toBe(204);
    const gone = await platform.app.inject({ method: 'GET', url: `/v1/projects/${id}`, headers: as(ownerToken) });
    expect(gone.statusCode).toBe(403);
    await objectClient<KubeObject>(conn, NAMESPACES).delete('', id);
  });

  it('deletes a project whose only domains are soft-deleted (kept as history), and refuses one with a live domain', async () => {
    const id = await platform.createProject(owner);
    const conn = testConnection();
    await objectClient<KubeObject>(conn, NAMESPACES).create({ metadata: { name: id } });
    const domains = objectClient<ProjectDomain>(conn, PROJECT_DOMAINS);
    await domains.create({ metadata: { name: 'old', namespace: id }, spec: { domain: `${id}-old.example`, deleted: true } });
    await domains.create({ metadata: { name: 'live', namespace: id }, spec: { domain: `${id}-live.example` } });

    const refused = await platform.app.inject({ method: 'DELETE', url: `/v1/projects/${id}`, headers: as(ownerToken) });
    expect(refused.statusCode, refused.body).toBe(409);
    expect(refused.json().detail).toBe(`Project ${id} still has 1 domain (${id}-live.example); delete them first.`);

    await domains.patch(id, 'live', { spec: { deleted: true } });
    const deleted = await platform.app.inject({ method: 'DELETE', url: `/v1/projects/${id}`, headers: as(ownerToken) });
    expect(deleted.statusCode, deleted.body).toBe(204);
    await objectClient<KubeObject>(conn, NAMESPACES).delete('', id);
  });
});
