import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EventStream } from '../../git-server/repo-api/testing/event-stream-client.ts';
import type { Repository } from '../../src/apis/v1alpha1/repository.ts';
import type { SourceBuild, SourceBuildStatus } from '../../src/apis/v1alpha1/source-build.ts';
import { hashToken, type PlaintextToken } from '../../src/auth/index.ts';
import { objectClient } from '../../src/kube/index.ts';
import { REPOSITORIES, SOURCE_BUILDS } from '../../src/platform/resources.ts';
import { BuildLogWriter } from '../../src/platform/source-builds/build-log.ts';
import { TRIMMED_LOG_BYTES, TRIMMED_LOG_NOTICE } from '../../src/platform/source-builds/log-retention.ts';
import { trimBuildLog } from '../../src/platform/source-builds/log-trim.ts';
import { platformApp, type PlatformApp } from './testing/platform-app.ts';

let platform: PlatformApp;
let owner: string;
let project: string;
let token: string;
let url: string;
const APP = 'web';
const OTHER = 'admin';

const builds = () => objectClient<SourceBuild>(platform.conn, SOURCE_BUILDS);

beforeAll(async () => {
  // Followed logs check their callers again every 100 ms here (10 s by default).
  platform = await platformApp({ logStreamLimits: { total: 200, perUser: 8, recheckMs: 100 } });
  owner = await platform.createUser();
  project = await platform.createProject(owner, { namespace: true });
  token = await platform.tokenFor(owner, ['apps:write', 'repositories:read', 'deploys:write', 'env:read']);
  await objectClient<Repository>(platform.conn, REPOSITORIES).create({ metadata: { name: 'site', namespace: project }, spec: { owner: project, name: 'site' } });
  for (const name of [APP, OTHER]) expect((await call('POST', '/apps', { name })).statusCode).toBe(201);
  expect((await call('PUT', `/apps/${APP}/source`, { repository: `${project}/site` })).statusCode).toBe(201);
  await platform.app.listen({ port: 0, host: '127.0.0.1' });
  url = `http://127.0.0.1:${(platform.app.server.address() as AddressInfo).port}/v1/projects/${project}`;
});
afterAll(() => platform.close());

const call = (method: 'GET' | 'POST' | 'PUT' | 'DELETE', path: string, payload?: object, bearer = token) =>
  platform.app.inject({ method, url: `/v1/projects/${project}${path}`, headers: { authorization: `Bearer ${bearer}` }, ...(payload ? { payload } : {}) });

let commits = 0;
/** A SourceBuild as the AppSource controller makes one, with its status written as the SourceBuild controller would. */
async function build(app: string, branch: string, status?: SourceBuildStatus, source = APP): Promise<string> {
  const commit = (++commits).toString(16).padStart(4, '0').padEnd(40, 'c');
  const name = `${app}-${commit.slice(0, 12)}`;
  await builds().create({
    metadata: { name, namespace: project },
    spec: { app, source, context: app === source ? 'production' : 'preview', repository: 'shop/site', branch, commit },
  });
  if (status) await builds().patchStatus(project, name, { status });
  await shown(app === OTHER ? OTHER : APP, name, status?.state?.toLowerCase() ?? 'queued');
  return name;
}

/** Resolves once the API (its cache) shows the build in `state`. */
async function shown(app: string, name: string, state: string): Promise<void> {
  await expect.poll(async () => (await call('GET', `/apps/${app}/source-builds/${name}`)).json().build?.state, { timeout: 10_000, interval: 25 }).toBe(state);
}

/** Waits until the clock is in a later second than `since` (creation times have whole seconds). */
async function nextSecond(since: string): Promise<void> {
  await expect.poll(() => Math.floor(Date.now() / 1000) > Math.floor(Date.parse(since) / 1000), { timeout: 3_000, interval: 20 }).toBe(true);
}

describe('source builds', () => {
  it('lists the app’s and its previews’ builds, newest first, by branch and page, never another app’s', async () => {
    const first = await build(APP, 'main', { state: 'Succeeded', buildId: 'b-0123456789abcdef', commitMessage: 'First', author: 'Ada' });
    const preview = await build(`feature-x--${APP}`, 'feature/x', { state: 'Failed', reason: 'CommandFailed', message: 'npm run build exited with 1.' });
    const theirs = await build(OTHER, 'main', undefined, OTHER);
    await nextSecond((await builds().get(project, preview))?.metadata?.creationTimestamp ?? '');
    const newest = await build(APP, 'main', { state: 'Building', startedAt: new Date().toISOString().replace(/\.\d+Z$/, 'Z') });

    const all = (await call('GET', `/apps/${APP}/source-builds`)).json();
    const ids = all.builds.map((b: { source_build_id: string }) => b.source_build_id);
    expect(ids[0]).toBe(newest);
    expect([...ids].sort()).toEqual([first, preview, newest].sort());
    expect(ids).not.toContain(theirs);
    expect(all.next).toBeNull();
    expect(all.builds.find((b: { source_build_id: string }) => b.source_build_id === first)).toMatchObject({
      app_id: APP,
      context: 'production',
      branch: 'main',
      state: 'succeeded',
      build_id: 'b-0123456789abcdef',
      commit_message: 'First',
      author: 'Ada',
      cancel_requested: false,
    });
    expect(all.builds.find((b: { source_build_id: string }) => b.source_build_id === preview)).toMatchObject({
      app_id: `feature-x--${APP}`,
      context: 'preview',
      state: 'failed',
      reason: 'CommandFailed',
      message: 'npm run build exited with 1.',
    });

    const byBranch = (await call('GET', `/apps/${APP}/source-builds?branch=feature/x`)).json();
    expect(byBranch.builds.map((b: { source_build_id: string }) => b.source_build_id)).toEqual([preview]);
    // A page at a time, each build once.
    const paged: string[] = [];
    let cursor: string | null = null;
    do {
      const page: { builds: { source_build_id: string }[]; next: string | null } = (await call('GET', `/apps/${APP}/source-builds?limit=1${cursor ? `&cursor=${cursor}` : ''}`)).json();
      expect(page.builds.length).toBeLessThanOrEqual(1);
      paged.push(...page.builds.map((b) => b.source_build_id));
      cursor = page.next;
    } while (cursor);
    expect(paged).toEqual(ids);

    expect((await call('GET', `/apps/${APP}/source-builds/${newest}`)).json().build).toMatchObject({ source_build_id: newest, state: 'building' });
    // Another app's build is not found through this app, and no app is not found at all.
    expect((await call('GET', `/apps/${APP}/source-builds/${theirs}`)).statusCode).toBe(404);
    expect((await call('GET', `/apps/nothing/source-builds`)).statusCode).toBe(404);
    expect((await call('GET', `/apps/${APP}/source-builds/${APP}-000000000000`)).statusCode).toBe(404);
    for (const query of ['limit=0', 'limit=101', 'cursor=../x', 'branch=a..b', 'other=1']) expect((await call('GET', `/apps/${APP}/source-builds?${query}`)).statusCode).toBe(400);
  });

  it('cancels a queued or running build through spec.cancelled, and refuses a finished one', async () => {
    const queued = await build(APP, 'cancel-me');
    const res = await call('POST', `/apps/${APP}/source-builds/${queued}/cancel`);
    expect(res.statusCode).toBe(200);
    expect(res.json().build).toMatchObject({ source_build_id: queued, state: 'queued', cancel_requested: true });
    const stored = await builds().get(project, queued);
    expect(stored?.spec.cancelled).toBe(true);
    expect(stored?.status).toBeUndefined(); // the operator's to write
    expect((await call('POST', `/apps/${APP}/source-builds/${queued}/cancel`)).statusCode).toBe(200); // repeatable

    const done = await build(APP, 'done', { state: 'Succeeded' });
    const refused = await call('POST', `/apps/${APP}/source-builds/${done}/cancel`);
    expect(refused.statusCode).toBe(409);
    expect(refused.json().detail).toContain('already finished (succeeded)');
    expect((await builds().get(project, done))?.spec.cancelled).toBeUndefined();

    const running = await build(APP, 'running', { state: 'Building' });
    const reader = await platform.tokenFor(owner, ['apps:read']);
    const forbidden = await call('POST', `/apps/${APP}/source-builds/${running}/cancel`, undefined, reader);
    expect(forbidden.statusCode).toBe(403);
    expect(forbidden.json().detail).toContain('deploys:write');
    expect((await builds().get(project, running))?.spec.cancelled).toBeUndefined();
    const theirs = await build(OTHER, 'main', { state: 'Building' }, OTHER);
    expect((await call('POST', `/apps/${APP}/source-builds/${theirs}/cancel`)).statusCode).toBe(404);
    expect((await builds().get(project, theirs))?.spec.cancelled).toBeUndefined();
  });

  it('answers the whole log so far as text', async () => {
    const name = await build(APP, 'logged', { state: 'Building' });
    const log = new BuildLogWriter(platform.artifacts, project, name);
    log.write('$ npm ci\n');
    await log.flush();
    log.write('added 3 packages\n');
    await log.flush();
    const res = await call('GET', `/apps/${APP}/source-builds/${name}/logs`);
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('text/plain; charset=utf-8');
    expect(res.body).toBe('$ npm ci\nadded 3 packages\n');
    await log.finish({ state: 'Succeeded' });
    // A build that has logged nothing yet: an empty log.
    const quiet = await build(APP, 'quiet');
    expect((await call('GET', `/apps/${APP}/source-builds/${quiet}/logs`)).body).toBe('');
    // Another app's build's log is not reachable through this app.
    const theirs = await build(OTHER, 'main', { state: 'Building' }, OTHER);
    await new BuildLogWriter(platform.artifacts, project, theirs).finish({ state: 'Succeeded' });
    expect((await call('GET', `/apps/${APP}/source-builds/${theirs}/logs`)).statusCode).toBe(404);
  });

  it('follows the log live: each part within a second, then end with the outcome', async () => {
    const name = await build(APP, 'followed', { state: 'Building' });
    const log = new BuildLogWriter(platform.artifacts, project, name);
    log.write('starting\n');
    await log.flush();
    const stream = await EventStream.open(`${url}/apps/${APP}/source-builds/${name}/logs`, { headers: { authorization: `Bearer ${token}` } });
    expect([stream.status, stream.headers['content-type']]).toEqual([200, 'text/event-stream']);
    expect(await stream.next({ events: true })).toEqual({ event: 'log', data: { text: 'starting\n' } });
    for (const line of ['step 1\n', 'step 2\n']) {
      const written = performance.now();
      log.write(line);
      expect(await stream.next({ events: true })).toEqual({ event: 'log', data: { text: line } });
      expect(performance.now() - written).toBeLessThan(1_000 + 500); // the writer's half-second flush, then the API's half-second poll
    }
    await log.finish({ state: 'Failed', message: 'npm run build exited with 1.' });
    expect(await stream.next({ events: true })).toEqual({ event: 'end', data: { state: 'failed', message: 'npm run build exited with 1.' } });
    expect(await stream.next()).toBeUndefined(); // the stream ends with the build
  });

  it('gives a long log in parts of a few chunks, all of them, as fast as the reader takes them', async () => {
    const name = await build(APP, 'verbose', { state: 'Building' });
    const log = new BuildLogWriter(platform.artifacts, project, name);
    const line = `${'\u0001'.repeat(1023)}\n`; // escaped six times over in JSON: the most a part can weigh
    for (let i = 0; i < 1024; i++) log.write(line);
    await log.finish({ state: 'Succeeded' });
    const stream = await EventStream.open(`${url}/apps/${APP}/source-builds/${name}/logs`, { headers: { authorization: `Bearer ${token}` } });
    let text = '';
    for (;;) {
      const message = (await stream.next({ events: true })) as { event: string; data: { text?: string } } | undefined;
      if (!message || message.event !== 'log') {
        expect(message?.event).toBe('end');
        break;
      }
      expect(message.data.text?.length).toBeLessThanOrEqual(4 * 64 * 1024 + 1024);
      text += message.data.text;
    }
    expect(text).toBe(line.repeat(1024));
  });

  it('says so where the start of an older build’s log was removed, as text and as events', async () => {
    const name = await build(APP, 'trimmed', { state: 'Building' });
    const log = new BuildLogWriter(platform.artifacts, project, name);
    for (let i = 0; i < 1024; i++) log.write(`${String(i).padStart(6, '0')} ${'x'.repeat(1016)}\n`);
    await log.finish({ state: 'Failed', message: 'exit 1' });
    await trimBuildLog(platform.artifacts, project, name); // as the operator does once the app has newer builds
    const res = await call('GET', `/apps/${APP}/source-builds/${name}/logs`);
    expect(res.statusCode).toBe(200);
    expect(res.body.startsWith(TRIMMED_LOG_NOTICE)).toBe(true);
    expect(res.body.length).toBeLessThanOrEqual(TRIMMED_LOG_NOTICE.length + TRIMMED_LOG_BYTES);
    expect(res.body).toMatch(/\n\d{6} x+\n001023 x+\n$/);
    const stream = await EventStream.open(`${url}/apps/${APP}/source-builds/${name}/logs`, { headers: { authorization: `Bearer ${token}` } });
    const first = (await stream.next({ events: true })) as { event: string; data: { text: string } };
    expect(first.event).toBe('log');
    expect(first.data.text.startsWith(TRIMMED_LOG_NOTICE)).toBe(true);
    stream.close();
  });

  it('follows with ?follow=true too, and ends a build that finished without a log by its own state', async () => {
    const name = await build(APP, 'superseded');
    const stream = await EventStream.open(`${url}/apps/${APP}/source-builds/${name}/logs?follow=true`, { headers: { authorization: `Bearer ${token}`, accept: '*/*' } });
    expect(stream.status).toBe(200);
    // As the operator cancels a build that never started: a state, no log.
    await builds().patchStatus(project, name, { status: { state: 'Cancelled', reason: 'Superseded', message: 'A newer push to superseded replaced it.' } });
    expect(await stream.next({ events: true })).toEqual({ event: 'end', data: { state: 'cancelled', message: 'A newer push to superseded replaced it.' } });
    expect(await stream.next()).toBeUndefined();
    // follow=false is the text, whatever Accept says.
    const res = await fetch(`${url}/apps/${APP}/source-builds/${name}/logs?follow=false`, { headers: { authorization: `Bearer ${token}`, accept: 'text/event-stream' } });
    expect([res.status, res.headers.get('content-type'), await res.text()]).toEqual([200, 'text/plain; charset=utf-8', '']);
  });

  it('ends a followed log once its caller is no longer allowed: its token revoked, or removed from the project', async () => {
    const name = await build(APP, 'revoked', { state: 'Building' });
    const streams: EventStream[] = [];
    const follow = async (bearer: string) => {
      const stream = await EventStream.open(`${url}/apps/${APP}/source-builds/${name}/logs`, { headers: { authorization: `Bearer ${bearer}` } });
      streams.push(stream);
      expect(stream.status).toBe(200);
      return stream;
    };
    try {
      const brief = await platform.tokenFor(owner, ['apps:read']);
      const revoked = await follow(brief);
      const kept = await follow(token);
      const record = await platform.tokens.findTokenByHash(hashToken(brief as PlaintextToken));
      await platform.tokens.revokeToken(record!.id);
      expect(await revoked.next({ events: true })).toBeUndefined();

      const member = await platform.createUser();
      const ownerOfProject = await platform.tokenFor(owner, ['projects:write']);
      expect((await call('PUT', `/members/${member}`, { role: 'member' }, ownerOfProject)).statusCode).toBe(202);
      const joining = { authorization: `Bearer ${await platform.tokenFor(member, ['projects:write'])}` };
      expect((await platform.app.inject({ method: 'POST', url: `/v1/user/invitations/${project}/accept`, headers: joining, payload: { role: 'member' } })).statusCode).toBe(200);
      const removed = await follow(await platform.tokenFor(member, ['apps:read']));
      expect((await call('DELETE', `/members/${member}`, undefined, ownerOfProject)).statusCode).toBe(204);
      expect(await removed.next({ events: true })).toBeUndefined();

      // A caller still allowed follows on.
      const log = new BuildLogWriter(platform.artifacts, project, name);
      log.write('still here\n');
      await log.flush();
      expect(await kept.next({ events: true })).toEqual({ event: 'log', data: { text: 'still here\n' } });
    } finally {
      for (const stream of streams) stream.close();
    }
  });

  it('ends a followed log when the build is deleted', async () => {
    const name = await build(APP, 'deleted', { state: 'Building' });
    const stream = await EventStream.open(`${url}/apps/${APP}/source-builds/${name}/logs`, { headers: { authorization: `Bearer ${token}` } });
    await builds().delete(project, name);
    expect(await stream.next({ events: true })).toEqual({ event: 'end', data: { state: 'deleted', message: 'The build was deleted.' } });
  });
});
