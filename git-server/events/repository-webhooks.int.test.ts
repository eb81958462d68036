// Per-repository webhooks on the real kube-apiserver and MinIO: RepositoryWebhook resources and labelled Secrets
// applied through the apiserver, delivered by the events role's webhooks bridge to real local receivers, signed
// with each webhook's own secret in its own scheme (both verified here with code of the test's own), filtered,
// each with a cursor of its own in the bucket; and the status the bridge writes on the resources. Each test has a
// namespace and a bucket of its own (one lane writes a namespace's statuses). Waits on the receivers' arrivals,
// the lane's resolutions and the resources' watch; never sleeps.
import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { findCondition } from '../../src/conditions/index.ts';
import type { RepositoryWebhook } from '../../src/apis/v1alpha1/repository-webhook.ts';
import { TargetPolicy } from '../../src/target-policy.ts';
import { readCursor } from './cursor.ts';
import type { RefEvent } from './ref-event.ts';
import { webhookCursorKey, webhookDeliveriesKey } from './webhook-layout.ts';
import { eventsCursorKey, parseRepoPath } from '../../src/repo-store/index.ts';
import { WebhookReceiver, type Arrival } from './testing/webhook-receiver.ts';
import { WebhooksTestbed } from './testing/webhooks-testbed.ts';

const SERVICE_SECRET = 'per-repo-service-secret';
const STANDARD_SECRET = `whsec_${randomBytes(32).toString('base64')}`;

const beds: WebhooksTestbed[] = [];
const receivers: WebhookReceiver[] = [];
afterAll(async () => {
  for (const bed of beds) await bed.close();
  for (const r of receivers) await r.close();
});

async function testbed(name: string): Promise<WebhooksTestbed> {
  const bed = await WebhooksTestbed.create(name);
  beds.push(bed);
  return bed;
}

const conditionOf = (hook: RepositoryWebhook | undefined, type: string) => findCondition(hook?.status?.conditions, type);

async function receiver(secret?: string): Promise<WebhookReceiver> {
  const r = await WebhookReceiver.start(secret === undefined ? {} : { secret });
  receivers.push(r);
  return r;
}

/** The Standard Webhooks check, written from the specification: key from base64 after `whsec_`, HMAC of id.timestamp.body. */
function standardWebhookValid(arrival: Arrival, secret: string, nowSeconds = Math.floor(Date.now() / 1000)): boolean {
  const header = (name: string) => String(arrival.headers[name] ?? '');
  const id = header('webhook-id');
  const timestamp = Number(header('webhook-timestamp'));
  if (!id || !Number.isInteger(timestamp) || Math.abs(nowSeconds - timestamp) > 300) return false;
  const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
  const expected = Buffer.from(
    createHmac('sha256', key)
      .update(Buffer.concat([Buffer.from(`${id}.${timestamp}.`), arrival.body]))
      .digest('base64'),
  );
  return header('webhook-signature')
    .split(' ')
    .some((candidate) => {
      const [version, signature = ''] = candidate.split(',');
      const given = Buffer.from(signature);
      return version === 'v1' && given.length === expected.length && timingSafeEqual(given, expected);
    });
}

const refs = (events: readonly RefEvent[]) => events.map((e) => `${e.action} ${e.ref_name} ${e._service.seq}`);

describe('per-repository webhooks', () => {
  it('deliver the events of their repository since they were created, signed in their scheme, filtered, each with its own cursor', { timeout: 60_000 }, async () => {
    const bed = await testbed('deliver');
    const tags = await receiver(SERVICE_SECRET);
    const everything = await receiver();
    const other = await receiver();
    const repo = await bed.repository('deliver');
    const otherRepo = await bed.repository('quiet');
    await bed.secret('hook-keys', { service: SERVICE_SECRET, standard: STANDARD_SECRET });
    const lane = await bed.lane();
    const tagHook = await bed.webhook('tags', {
      repository: repo,
      url: tags.url,
      secretRef: { name: 'hook-keys', key: 'service' },
      events: { actions: ['create', 'delete'], refs: ['refs/tags/*'] },
    });
    const allHook = await bed.webhook('all', { repository: repo, url: everything.url, secretRef: { name: 'hook-keys', key: 'standard' }, signature: 'standard-webhooks' });
    await bed.webhook('elsewhere', { repository: otherRepo, url: other.url, secretRef: { name: 'hook-keys', key: 'service' } });
    for (const name of ['tags', 'all', 'elsewhere']) await bed.until(lane, name, (s) => s?.resolution.kind === 'ready');

    const first = await bed.publish(repo, ['+main']);
    const second = await bed.publish(repo, ['main', '+refs/tags/v1']);
    const third = await bed.publish(repo, ['-refs/tags/v1', '+refs/tags/v2', '+feature']);
    lane.wake(repo);
    await everything.until(() => everything.acknowledged().length === 6);
    await tags.until(() => tags.acknowledged().length === 3);

    expect(refs(everything.acknowledged())).toEqual([
      `create refs/heads/main ${first}`,
      `update refs/heads/main ${second}`,
      `create refs/tags/v1 ${second}`,
      `delete refs/tags/v1 ${third}`,
      `create refs/tags/v2 ${third}`,
      `create refs/heads/feature ${third}`,
    ]);
    expect(refs(tags.acknowledged())).toEqual([`create refs/tags/v1 ${second}`, `delete refs/tags/v1 ${third}`, `create refs/tags/v2 ${third}`]);
    // The spec's scheme: X-Service-Signature with this webhook's secret, checked by the receiver in constant time.
    expect(tags.arrivals.every((a) => a.signatureValid === true && a.headers['webhook-signature'] === undefined)).toBe(true);
    // Standard Webhooks: the same delivery id in webhook-id and X-Service-Delivery, the SHA-1 of the body.
    for (const arrival of everything.arrivals) {
      expect(standardWebhookValid(arrival, STANDARD_SECRET)).toBe(true);
      expect(standardWebhookValid(arrival, `whsec_${randomBytes(32).toString('base64')}`)).toBe(false);
      expect(arrival.headers['webhook-id']).toBe(createHash('sha1').update(arrival.body).digest('hex'));
      expect(arrival.headers['x-service-delivery']).toBe(arrival.headers['webhook-id']);
      expect(arrival.headers['x-service-signature']).toBeUndefined();
    }
    expect(other.arrivals).toEqual([]);

    // A catch-up queued now runs after the one that delivered: the cursors are written by then.
    await lane.bridge.wakeAll(repo);
    const path = parseRepoPath(repo);
    expect((await readCursor(bed.store, webhookCursorKey(path, tagHook.metadata?.uid ?? '')))?.seq).toBe(third);
    expect((await readCursor(bed.store, webhookCursorKey(path, allHook.metadata?.uid ?? '')))?.seq).toBe(third);
    expect(await readCursor(bed.store, eventsCursorKey(path))).toBeUndefined();

    // A redelivery: the same body and webhook-id, a fresh timestamp, signed again; recorded as a redelivery.
    const [firstRecord] = ((await lane.deliveries(repo, 'all')) ?? []).slice(-1);
    const again = await lane.redeliver(repo, 'all', firstRecord?.id ?? 0);
    expect(again).toMatchObject({ delivery_id: firstRecord?.delivery_id, redelivery: true, attempt: 2, outcome: 'delivered' });
    const repeated = everything.arrivals.at(-1);
    expect(repeated?.headers['webhook-id']).toBe(firstRecord?.delivery_id);
    expect(repeated && standardWebhookValid(repeated, STANDARD_SECRET)).toBe(true);
    // Once the filter changed, that payload can no longer be rebuilt as it was: refused, not posted under the old id.
    await bed.hooks.patch(bed.namespace, 'tags', { spec: { events: { actions: ['create'] } } });
    await bed.until(lane, 'tags', (s) => s?.hook.metadata?.generation === 2);
    // The delivery of the third entry, whose delete the new filter drops (alone, or with the second's entry when the
    // catch-up a webhook's readiness starts ran between them: how entries fall into deliveries depends on wake-ups).
    const tagRecord = (await lane.deliveries(repo, 'tags'))?.find((record) => record.to_seq === third && !record.redelivery);
    await expect(lane.redeliver(repo, 'tags', tagRecord?.id ?? 0)).rejects.toMatchObject({ code: 'payload_changed', status: 409 });

    // A deleted webhook takes its cursor and delivery log with it.
    const gone = new Promise<void>((resolve) => lane.webhooks.onChange((change) => 'removed' in change && change.removed.key === `${bed.namespace}/all` && resolve()));
    await bed.hooks.delete(bed.namespace, 'all');
    await gone;
    await lane.settled();
    expect(await bed.store.get(webhookCursorKey(path, allHook.metadata?.uid ?? ''))).toBeUndefined();
    expect(await bed.store.get(webhookDeliveriesKey(path, allHook.metadata?.uid ?? ''))).toBeUndefined();
  });

  it('hold a webhook whose Secret is missing or unlabelled, and deliver once a labelled one appears', { timeout: 60_000 }, async () => {
    const bed = await testbed('late');
    const r = await receiver('late-secret');
    const repo = await bed.repository('late');
    const lane = await bed.lane();
    // The apiserver refuses what the schema refuses: credentials in the URL, a repository that is no owner/name.
    await expect(bed.webhook('creds', { repository: repo, url: 'https://user:pass@hooks.example.com/', secretRef: { name: 'x', key: 'k' } })).rejects.toMatchObject({ code: 422 });
    await expect(bed.webhook('bad-repo', { repository: 'acme/site.git', url: r.url, secretRef: { name: 'x', key: 'k' } })).rejects.toMatchObject({ code: 422 });
    await bed.secret('unlabelled', { key: 'late-secret' }, false);
    await bed.webhook('late', { repository: repo, url: r.url, secretRef: { name: 'unlabelled', key: 'key' } });
    const held = await bed.until(lane, 'late', (s) => s !== undefined);
    expect(held?.resolution).toMatchObject({ kind: 'not-ready', reason: 'SecretNotFound' });
    const status = await bed.resource('late', (h) => conditionOf(h, 'Ready')?.reason === 'SecretNotFound');
    expect(conditionOf(status, 'Ready')).toMatchObject({
      status: 'False',
      message: 'Secret unlabelled is not found (cw-git reads only Secrets labelled cloudwright.dev/webhook-secret: "true"); nothing is delivered until it is.',
    });
    expect(JSON.stringify(status?.status)).not.toContain('late-secret');
    await bed.publish(repo, ['+main']);
    lane.wake(repo);
    expect(lane.webhooks.targetsOf(repo)).toEqual([]);

    await bed.hooks.patch(bed.namespace, 'late', { spec: { secretRef: { name: 'late-keys', key: 'key' } } });
    await bed.secret('late-keys', { key: 'late-secret' });
    await bed.until(lane, 'late', (s) => s?.resolution.kind === 'ready');
    await r.until(() => r.acknowledged().length === 1);
    expect(r.arrivals.every((a) => a.signatureValid)).toBe(true);
    await bed.resource('late', (h) => conditionOf(h, 'Ready')?.status === 'True' && conditionOf(h, 'LastDeliverySucceeded')?.status === 'True');
  });

  it('report a failing receiver on the resource, counting consecutive failures, and the recovery', { timeout: 60_000 }, async () => {
    const bed = await testbed('status');
    const r = await receiver('status-secret');
    r.answer = () => 503;
    const repo = await bed.repository('status');
    await bed.secret('status-keys', { key: 'status-secret' });
    const lane = await bed.lane();
    await bed.webhook('flaky', { repository: repo, url: r.url, secretRef: { name: 'status-keys', key: 'key' } });
    const fresh = await bed.resource('flaky', (h) => conditionOf(h, 'Ready')?.status === 'True');
    expect(conditionOf(fresh, 'Ready')).toMatchObject({ reason: 'Active', message: `Events of ${repo} are delivered to ${new URL(r.url).host}.`, observedGeneration: 1 });
    expect(conditionOf(fresh, 'LastDeliverySucceeded')).toMatchObject({ status: 'Unknown', reason: 'NoDeliveryYet' });
    expect(fresh?.status).toMatchObject({ observedGeneration: 1, urlHost: new URL(r.url).host, consecutiveFailures: 0 });

    await bed.publish(repo, ['+main']);
    lane.wake(repo);
    // The bridge retries by itself after a backoff; each failure is counted on the resource.
    const failing = await bed.resource('flaky', (h) => (h?.status?.consecutiveFailures ?? 0) >= 3);
    expect(conditionOf(failing, 'LastDeliverySucceeded')).toMatchObject({ status: 'False', reason: 'Rejected', message: 'The receiver answered 503; the events are posted again after a backoff.' });
    expect(failing?.status?.lastDelivery).toMatchObject({ status: 'failed', httpStatus: 503, seq: '1', deliveryId: r.arrivals[0]?.deliveryId });
    expect(conditionOf(failing, 'Ready')?.status).toBe('True');

    r.answer = () => 204;
    const recovered = await bed.resource('flaky', (h) => conditionOf(h, 'LastDeliverySucceeded')?.status === 'True');
    expect(recovered?.status).toMatchObject({ consecutiveFailures: 0, lastDelivery: { status: 'succeeded', httpStatus: 204, seq: '1' } });
    expect(conditionOf(recovered, 'LastDeliverySucceeded')).toMatchObject({ reason: 'Delivered', message: 'The receiver answered 204.' });
    expect(r.acknowledged().map((e) => e.ref_name)).toEqual(['refs/heads/main']);
  });

  it("redeliver at most 2 for one caller at once, whatever the repositories: a third waits its turn (429), another caller's is posted", { timeout: 60_000 }, async () => {
    const bed = await testbed('redeliver');
    const r = await receiver();
    const owner = `slow${randomBytes(3).toString('hex')}`;
    const mine = [`${owner}/one`, `${owner}/two`, `${owner}/three`];
    for (const repo of mine) await bed.repos.createRepo(repo);
    const theirs = await bed.repository('other');
    await bed.secret('redeliver-keys', { key: SERVICE_SECRET });
    const lane = await bed.lane();
    const repos = [...mine, theirs];
    for (const [i, repo] of repos.entries()) await bed.webhook(`hook-${i}`, { repository: repo, url: r.url, secretRef: { name: 'redeliver-keys', key: 'key' } });
    for (const i of repos.keys()) await bed.until(lane, `hook-${i}`, (state) => state?.resolution.kind === 'ready');
    for (const repo of repos) {
      await bed.publish(repo, ['+main']);
      lane.wake(repo);
    }
    await r.until(() => r.acknowledged().length === repos.length);
    const firstRecord = async (i: number) => (await lane.deliveries(repos[i] ?? '', `hook-${i}`))?.[0]?.id ?? 0;

    // The receiver now holds what arrives: two redeliveries asked for without a caller (the owner's share) take it.
    r.answer = () => 'hold';
    const held = [lane.redeliver(repos[0] ?? '', 'hook-0', await firstRecord(0)), lane.redeliver(repos[1] ?? '', 'hook-1', await firstRecord(1))];
    await r.until(() => r.arrivals.length === repos.length + 2);
    const refused = { status: 429, code: 'too_many_redeliveries', message: expect.stringContaining(`${owner} has 2 redeliveries under way`) };
    await expect(lane.redeliver(repos[2] ?? '', 'hook-2', await firstRecord(2))).rejects.toMatchObject(refused);
    // The same caller asking for another owner's repository: still their share.
    await expect(lane.redeliver(theirs, 'hook-3', await firstRecord(3), owner)).rejects.toMatchObject(refused);
    const other = lane.redeliver(theirs, 'hook-3', await firstRecord(3), 'someone-else');
    await r.until(() => r.arrivals.length === repos.length + 3);
    for (const arrival of r.arrivals.slice(repos.length)) r.release(arrival);
    expect(await Promise.all([...held, other])).toEqual([0, 1, 3].map(() => expect.objectContaining({ redelivery: true, outcome: 'delivered' })));
  });

  it('refuse a URL on an internal address unless private targets are allowed, sending nothing', { timeout: 60_000 }, async () => {
    const bed = await testbed('ssrf');
    const r = await receiver();
    const repo = await bed.repository('ssrf');
    await bed.secret('ssrf-keys', { key: 'k' });
    const strict = await bed.lane({ policy: new TargetPolicy() });
    await bed.webhook('internal', { repository: repo, url: r.url, secretRef: { name: 'ssrf-keys', key: 'key' } });
    const refused = await bed.resource('internal', (h) => conditionOf(h, 'Ready')?.reason === 'TargetRefused');
    expect(conditionOf(refused, 'Ready')).toMatchObject({
      status: 'False',
      message: 'the webhook host 127.0.0.1 resolves to 127.0.0.1, in 127.0.0.0/8 (loopback); set events.allow_private_targets: true to deliver to internal addresses; nothing is delivered.',
    });
    await bed.publish(repo, ['+main']);
    strict.wake(repo);
    expect(strict.webhooks.targetsOf(repo)).toEqual([]);
    expect(await strict.bridge.wakeAll(repo)).toEqual([]);
    expect(r.arrivals).toEqual([]);

    // The same resource, read by an instance that allows private targets: delivered.
    await strict.drain(1000);
    await bed.lane({ policy: new TargetPolicy({ allowPrivate: true }) });
    await bed.resource('internal', (h) => conditionOf(h, 'Ready')?.status === 'True' && conditionOf(h, 'LastDeliverySucceeded')?.status === 'True');
    expect(r.acknowledged()).toHaveLength(1);
  });
});
