// The events bridge in real cw-git instances: stock git pushes become signed ref events, woken through
// `POST /_events/notify` with the body MinIO's webhook target sends; a bridge process killed with SIGKILL
// between the delivery and its cursor write delivers the same batch again after a restart, nothing lost; a
// webhook on an internal address is refused. A bucket of its own: a bridge delivers every repository of its bucket.
import { randomBytes } from 'node:crypto';
import { readFile, writeFile } from 'node:fs/promises';
import { Registry } from 'prom-client';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { mintToken } from '../git-server/auth/index.ts';
import { parseConfig } from '../git-server/config/index.ts';
import { WebhookReceiver } from '../git-server/events/testing/webhook-receiver.ts';
import { startService as startGitServer, type RunningService } from '../git-server/serve.ts';
import { ensureBucket } from '../src/object-store/s3-buckets.ts';
import { S3ObjectStore } from '../src/object-store/s3-object-store.ts';
import { readCursor } from '../git-server/events/cursor.ts';
import { ANSWER_TIMEOUT_MS } from '../git-server/events/delivery-client.ts';
import { eventsCursorKey, parseRepoPath, RepoStore, zeroOid } from '../src/repo-store/index.ts';
import { GitClient } from './harness/git-client.ts';
import { gitServiceConfig, newTokenSecret, spawnCwGit, type GitServiceSetup } from './harness/git-service.ts';
import { killHard, type Service } from './harness/process.ts';

const WEBHOOK_SECRET = `hook-${randomBytes(8).toString('hex')}`;
const setup: GitServiceSetup = { s3: inject('s3'), bucket: `${inject('bucket')}-events-e2e`.slice(0, 63), tokenSecret: newTokenSecret(), roles: ['serve', 'events'] };
const token = mintToken({ sub: 'ada', scopes: ['read', 'write'] }, setup.tokenSecret);
const readToken = mintToken({ sub: 'viewer', scopes: ['read'] }, setup.tokenSecret);
const Z = zeroOid('sha1');

let receiver: WebhookReceiver;
let git: GitClient;
let store: S3ObjectStore;
let repos: RepoStore;
const cleanups: (() => Promise<void> | void)[] = [];

beforeAll(async () => {
  await ensureBucket(setup.s3, setup.bucket);
  [receiver, git] = await Promise.all([WebhookReceiver.start({ secret: WEBHOOK_SECRET }), GitClient.create()]);
  store = new S3ObjectStore({ config: setup.s3, bucket: setup.bucket, registry: new Registry() });
  repos = new RepoStore({ store, registry: new Registry() });
});
afterAll(async () => {
  for (const c of cleanups.reverse()) await c();
  await receiver?.close();
  store?.destroy();
});

/** The instance's configuration file with an events section; the secret comes from the environment, as in production. */
async function eventsConfig(events: Record<string, unknown>, port = 0) {
  const base = await gitServiceConfig(setup, port);
  const text = stringify({ ...(parse(base.text) as object), events });
  await writeFile(base.path, text);
  return { ...base, text, env: { ...base.env, SERVICE__EVENTS__WEBHOOK_SECRET: WEBHOOK_SECRET } };
}

async function startInProcess(events: Record<string, unknown>): Promise<RunningService> {
  const { text, env, dir } = await eventsConfig(events);
  const service = await startGitServer(parseConfig(text, env, { source: 'test config', baseDir: dir }), { logLevel: 'warn' });
  cleanups.push(() => service.stop());
  return service;
}

async function spawnBridge(): Promise<{ service: Service; url: string }> {
  const { service, url } = await spawnCwGit('cw-git-events', (port) => eventsConfig({ webhook_url: receiver.url, allow_private_targets: true }, port), 'info');
  cleanups.push(() => service.stop());
  return { service, url };
}

/** The body MinIO's webhook target posts for one object write (keys URL-encoded, as MinIO sends them). */
function minioNotification(key: string) {
  const encoded = encodeURIComponent(key);
  return {
    EventName: 's3:ObjectCreated:Put',
    Key: `${setup.bucket}/${key}`,
    Records: [
      {
        eventVersion: '2.0',
        eventSource: 'minio:s3',
        awsRegion: '',
        eventTime: new Date().toISOString(),
        eventName: 's3:ObjectCreated:Put',
        userIdentity: { principalId: 'minioadmin' },
        requestParameters: { principalId: 'minioadmin', region: '', sourceIPAddress: '127.0.0.1' },
        responseElements: {
          'x-amz-id-2': randomBytes(32).toString('hex'),
          'x-amz-request-id': randomBytes(8).toString('hex').toUpperCase(),
          'x-minio-deployment-id': randomBytes(16).toString('hex'),
          'x-minio-origin-endpoint': setup.s3.endpoint,
        },
        s3: {
          s3SchemaVersion: '1.0',
          configurationId: 'Config',
          bucket: { name: setup.bucket, ownerIdentity: { principalId: 'minioadmin' }, arn: `arn:aws:s3:::${setup.bucket}` },
          object: {
            key: encoded,
            size: 1234,
            eTag: randomBytes(16).toString('hex'),
            contentType: 'application/json',
            userMetadata: { 'content-type': 'application/json' },
            sequencer: randomBytes(8).toString('hex').toUpperCase(),
          },
        },
        source: { host: '127.0.0.1', port: '', userAgent: 'aws-sdk-js/3' },
      },
    ],
  };
}

const notify = (url: string, body: unknown, bearer = token) =>
  fetch(`${url}/_events/notify`, { method: 'POST', headers: { authorization: `Bearer ${bearer}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });

describe('the events bridge in cw-git', () => {
  it('turns git pushes and API writes into signed ref events, woken by a MinIO notification, {key} and {repo}', { timeout: 60_000 }, async () => {
    const service = await startInProcess({ webhook_url: receiver.url, allow_private_targets: true });
    const repo = `ev${randomBytes(3).toString('hex')}/site`;
    const remote = `${service.url.replace('http://', `http://git:${token}@`)}/${repo}`;
    expect((await fetch(`${service.url}/${repo}`, { method: 'PUT', headers: { authorization: `Bearer ${token}` } })).status).toBe(201);
    const work = await git.workdir(repo.replace('/', '-'));
    await git.run(['init', '-q'], { cwd: work });
    const main = await git.commit(work, 'first', { 'README.md': 'hello\n' });
    await git.run(['branch', 'side'], { cwd: work });
    await git.run(['tag', '-a', 'v1', '-m', 'v1'], { cwd: work });
    const tag = await git.out(['rev-parse', 'v1'], work);
    await git.run(['-c', 'http.extraHeader=X-Request-Id: e2e-push-1', 'push', '-q', '--atomic', remote, 'main', 'side', 'v1'], { cwd: work });

    // The spec's notification route is authenticated, with the write scope.
    expect((await notify(service.url, { repo }, readToken)).status).toBe(403);
    expect((await fetch(`${service.url}/_events/notify`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' })).status).toBe(401);

    const first = await notify(service.url, minioNotification(`repos/${repo}/manifest.json`));
    expect(first.status).toBe(200);
    expect(await first.json()).toEqual([{ repo, from_seq: 1, head_seq: 1, emitted: 3 }]);
    const batch = receiver.arrivals.filter((a) => a.events.some((e) => e.repo === repo));
    expect(batch).toHaveLength(1);
    expect(batch[0]?.signatureValid).toBe(true);
    expect(batch[0]?.headers['content-type']).toBe('application/json');
    const service1 = { schema_version: 1, seq: '1', entry_kind: 'push', request_id: 'e2e-push-1' };
    const common = { pusher: 'ada', correlation_id: 'e2e-push-1', repo, _service: service1 };
    expect([...(batch[0]?.events ?? [])].sort((a, b) => a.ref_name.localeCompare(b.ref_name))).toEqual([
      { action: 'create', ref_type: 'branch', ref_name: 'refs/heads/main', old: Z, new: main, ...common },
      { action: 'create', ref_type: 'branch', ref_name: 'refs/heads/side', old: Z, new: main, ...common },
      { action: 'create', ref_type: 'tag', ref_name: 'refs/tags/v1', old: Z, new: tag, ...common },
    ]);

    await git.run(['-c', 'http.extraHeader=X-Request-Id: e2e-push-2', 'push', '-q', remote, ':side'], { cwd: work });
    expect(await (await notify(service.url, { key: `repos/${repo}/manifest.json` })).json()).toEqual([{ repo, from_seq: 2, head_seq: 2, emitted: 1 }]);
    expect(receiver.arrivals.at(-1)?.events).toEqual([
      {
        action: 'delete',
        ref_type: 'branch',
        ref_name: 'refs/heads/side',
        old: main,
        new: Z,
        pusher: 'ada',
        correlation_id: 'e2e-push-2',
        repo,
        _service: { ...service1, seq: '2', request_id: 'e2e-push-2' },
      },
    ]);

    const api = await fetch(`${service.url}/${repo}/api/refs/heads/feature`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'x-request-id': 'e2e-api-1' },
      body: JSON.stringify({ target: main }),
    });
    expect(api.status).toBe(201);
    expect(await (await notify(service.url, { repo })).json()).toEqual([{ repo, from_seq: 3, head_seq: 3, emitted: 1 }]);
    expect(receiver.arrivals.at(-1)?.events[0]).toMatchObject({ action: 'create', ref_name: 'refs/heads/feature', correlation_id: 'e2e-api-1', _service: { seq: '3', entry_kind: 'ref_update' } });
    // Nothing new: an answer, no post.
    const posts = receiver.arrivals.length;
    expect(await (await notify(service.url, { repo })).json()).toEqual([{ repo, from_seq: 4, head_seq: 3, emitted: 0 }]);
    expect(receiver.arrivals).toHaveLength(posts);
    const metrics = await (await fetch(`${service.url}/metrics`, { headers: { authorization: `Bearer ${token}` } })).text();
    expect(metrics).toContain(`events_bridge_lag_entries{repo="${repo}"} 0`);
    expect(metrics).toMatch(/^events_bridge_gap_total 0$/m);
    await service.stop();
  });

  it('a pristine repository’s first API commit is a branch create event; a HEAD retarget emits nothing', { timeout: 60_000 }, async () => {
    const service = await startInProcess({ webhook_url: receiver.url, allow_private_targets: true });
    const repo = `first${randomBytes(3).toString('hex')}/site`;
    const call = (method: string, path: string, body: unknown, requestId: string) =>
      fetch(`${service.url}/${repo}${path}`, {
        method,
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'x-request-id': requestId },
        body: JSON.stringify(body),
      });
    expect((await fetch(`${service.url}/${repo}`, { method: 'PUT', headers: { authorization: `Bearer ${token}` } })).status).toBe(201);
    const commit = (branch: string, extra: Record<string, unknown>, requestId: string) =>
      call(
        'POST',
        '/api/commits',
        { branch, message: `${branch}\n`, committer: { name: 'Ada', email: 'ada@example.com' }, changes: [{ op: 'upsert', path: `${branch}.txt`, content: 'eAo=', mode: '100644' }], ...extra },
        requestId,
      );

    const first = await commit('main', {}, 'e2e-first-1');
    expect(first.status).toBe(201);
    const { oid } = (await first.json()) as { oid: string };
    expect(await (await notify(service.url, { repo })).json()).toEqual([{ repo, from_seq: 1, head_seq: 1, emitted: 1 }]);
    expect(receiver.arrivals.at(-1)?.events).toEqual([
      {
        action: 'create',
        ref_type: 'branch',
        ref_name: 'refs/heads/main',
        old: Z,
        new: oid,
        pusher: 'ada',
        correlation_id: 'e2e-first-1',
        repo,
        _service: { schema_version: 1, seq: '1', entry_kind: 'ref_update', request_id: 'e2e-first-1' },
      },
    ]);

    expect((await commit('dev', { base: 'main' }, 'e2e-first-2')).status).toBe(201);
    expect(await (await notify(service.url, { repo })).json()).toEqual([{ repo, from_seq: 2, head_seq: 2, emitted: 1 }]);
    expect(receiver.arrivals.at(-1)?.events[0]).toMatchObject({ action: 'create', ref_name: 'refs/heads/dev', old: Z });

    const posts = receiver.arrivals.length;
    const retarget = await call('PUT', '/api/refs', { branch: 'dev' }, 'e2e-first-3');
    expect(retarget.status).toBe(200);
    expect(await (await notify(service.url, minioNotification(`repos/${repo}/manifest.json`))).json()).toEqual([{ repo, from_seq: 3, head_seq: 2, emitted: 0 }]);
    expect(receiver.arrivals).toHaveLength(posts);
    await service.stop();
  });

  it('delivers the batch again after the bridge is killed between the delivery and its cursor write: nothing lost', { timeout: 90_000 }, async () => {
    const repo = `kill${randomBytes(3).toString('hex')}/app`;
    await repos.createRepo(repo);
    const oid = (n: number) => n.toString(16).padStart(40, 'a');
    for (let i = 1; i <= 3; i++) {
      await repos.publish(repo, { kind: 'ref_update', refUpdates: [{ ref: 'refs/heads/main', old: i === 1 ? Z : oid(i - 1), new: oid(i) }], pusher: 'ada', requestId: `k${i}`, atomic: true });
    }
    const mine = () => receiver.arrivals.filter((a) => a.events.some((e) => e.repo === repo));
    // The receiver has the batch but holds its answer: the bridge is between the delivery and the cursor write.
    receiver.answer = (arrival) => (arrival.events.some((e) => e.repo === repo) ? 'hold' : 204);
    const victim = await spawnBridge(); // its first sweep, at start, finds the repository
    await receiver.until(() => mine().length === 1);
    await killHard(victim.service);
    expect(await readCursor(store, eventsCursorKey(parseRepoPath(repo)))).toBeUndefined();

    receiver.answer = () => 204;
    const next = await spawnBridge();
    await receiver.until(() => mine().some((a) => a.acknowledged));
    const [lost, again] = mine();
    expect(again?.deliveryId, 'the same batch, byte for byte').toBe(lost?.deliveryId);
    expect(again?.events.map((e) => e._service.seq)).toEqual(['1', '2', '3']);
    // A wake-up answers once the catch-up (the start sweep's, or its own after it) is done.
    expect(await (await notify(next.url, { repo })).json()).toEqual([expect.objectContaining({ repo, head_seq: 3 })]);
    expect((await readCursor(store, eventsCursorKey(parseRepoPath(repo))))?.seq).toBe(3);
    await next.service.stop();
    for (const s of [victim.service, next.service]) {
      const log = await readFile(s.logPath, 'utf8');
      expect(log).toContain('events bridge delivering');
      expect(log, 'the webhook secret never reaches a log').not.toContain(WEBHOOK_SECRET);
    }
  });

  it('refuses a webhook on an internal address when private targets are not allowed, with a clear answer', { timeout: 30_000 }, async () => {
    expect(ANSWER_TIMEOUT_MS).toBe(10_000);
    const repo = `ssrf${randomBytes(3).toString('hex')}/app`;
    await repos.createRepo(repo);
    await repos.publish(repo, { kind: 'ref_update', refUpdates: [{ ref: 'refs/heads/main', old: Z, new: 'b'.repeat(40) }], pusher: 'ada', requestId: 's1', atomic: true });
    const strict = await startInProcess({ webhook_url: receiver.url });
    const res = await notify(strict.url, { repo });
    expect(res.status).toBe(503);
    const body = (await res.json()) as { error: string; message: string; failed: { reason: string }[] };
    expect(body.error).toBe('delivery_failed');
    expect(body.failed[0]?.reason).toBe(
      'delivery refused: the webhook host 127.0.0.1 resolves to 127.0.0.1, in 127.0.0.0/8 (loopback); set events.allow_private_targets: true to deliver to internal addresses',
    );
    expect(
      receiver.arrivals.filter((a) => a.events.some((e) => e.repo === repo)),
      'nothing was sent',
    ).toHaveLength(0);
    await strict.stop();
  });
});
