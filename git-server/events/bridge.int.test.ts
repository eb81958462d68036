// The events bridge on MinIO with real packs and a real HTTP receiver: at-least-once, in order, nothing lost
// under a receiver failing half the time; two bridges on one bucket; a gap left by log retention; nothing for
// maintenance or a HEAD change; time-out, an owner's share, a catch-up's turn, deny-list, sweep and drain. Each test has a bucket of its own: a
// bridge delivers every repository of its bucket.
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { Registry } from 'prom-client';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { ScratchRepo, type BuiltPack } from '../../src/git/testing/scratch-repo.ts';
import { ensureBucket } from '../../src/object-store/s3-buckets.ts';
import { S3ObjectStore } from '../../src/object-store/s3-object-store.ts';
import { readCursor } from './cursor.ts';
import { DeliveryClient } from './delivery-client.ts';
import { configuredWebhook } from './delivery-target.ts';
import type { RefEvent } from './ref-event.ts';
import { TargetPolicy } from '../../src/target-policy.ts';
import { RepoMaintenance, silentContext } from '../../src/repo-maintenance/index.ts';
import { decodeManifest, encodeManifest } from '../../src/repo-store/manifest.ts';
import { eventsCursorKey, manifestKey, parseRepoPath, RepoStore, zeroOid, type RefUpdate } from '../../src/repo-store/index.ts';
import { EventsBridge, type EventsBridgeOptions } from './bridge.ts';
import { EventsMetrics } from './metrics.ts';
import { WebhookReceiver } from './testing/webhook-receiver.ts';

const SECRET = 'bridge-test-secret';
const Z = zeroOid('sha1');
const cleanups: (() => Promise<void> | void)[] = [];
afterAll(async () => {
  for (const c of cleanups.reverse()) await c();
});

/** A chain of 20 real commits and, for each, the pack a push of it carries: shared by every repository. */
let chain: { oid: string; pack: BuiltPack }[] = [];
beforeAll(async () => {
  const scratch = await ScratchRepo.create();
  cleanups.push(() => scratch.remove());
  let previous: string | undefined;
  for (let i = 1; i <= 20; i++) {
    const oid = await scratch.commit('main', { [`f${i}.txt`]: `${i}\n` });
    chain.push({ oid, pack: await scratch.pack([oid], previous ? [previous] : []) });
    previous = oid;
  }
}, 60_000);

async function bucketOf(name: string) {
  const bucket = `${inject('bucket')}-ev-${name}`.slice(0, 63);
  await ensureBucket(inject('s3'), bucket);
  return bucket;
}

function connect(bucket: string) {
  const store = new S3ObjectStore({ config: inject('s3'), bucket, registry: new Registry() });
  cleanups.push(() => store.destroy());
  return { store, repos: new RepoStore({ store, registry: new Registry() }) };
}

async function receiver(): Promise<WebhookReceiver> {
  const r = await WebhookReceiver.start({ secret: SECRET });
  cleanups.push(() => r.close());
  return r;
}

const open = new TargetPolicy({ allowPrivate: true });

function bridge(bucket: string, url: string, over: Partial<EventsBridgeOptions> = {}) {
  const { store, repos } = connect(bucket);
  const registry = new Registry();
  const b = new EventsBridge({
    repos,
    store,
    target: configuredWebhook(url, SECRET),
    client: new DeliveryClient({ policy: open, answerTimeoutMs: 2000 }),
    metrics: new EventsMetrics(registry),
    sweepIntervalMs: 3_600_000,
    backoff: { baseMs: 20, maxMs: 200 },
    log: pino({ level: process.env.EVENTS_TEST_LOG ?? 'silent' }),
    ...over,
  });
  cleanups.push(() => b.drain(1000));
  return { bridge: b, registry, store, repos };
}

/** The updates of push `i` (1-based) along the chain: main moves; every 5th also tags; 10 creates a branch, 15 deletes it. */
function updatesOf(i: number): RefUpdate[] {
  const oid = chain[i - 1]!.oid;
  const updates: RefUpdate[] = [{ ref: 'refs/heads/main', old: i === 1 ? Z : chain[i - 2]!.oid, new: oid }];
  if (i % 5 === 0) updates.push({ ref: `refs/tags/v${i}`, old: Z, new: oid });
  if (i === 10) updates.push({ ref: 'refs/heads/feature', old: Z, new: oid });
  if (i === 15) updates.push({ ref: 'refs/heads/feature', old: chain[9]!.oid, new: Z });
  return updates;
}

async function push(repos: RepoStore, repo: string, i: number): Promise<void> {
  const { pack } = chain[i - 1]!;
  const result = await repos.publish(repo, { kind: 'push', refUpdates: updatesOf(i), pack: { body: pack.pack, idx: pack.idx }, pusher: 'ada', requestId: `${repo}#${i}`, atomic: true });
  expect(result.outcome === 'published' && result.seq).toBe(i);
}

/** The events pushes 1..n must produce, as comparable strings. */
function expectedEvents(repo: string, n: number): string[] {
  return Array.from({ length: n }, (_, k) => updatesOf(k + 1).map((u) => `${repo} ${k + 1} ${u.ref} ${u.old}..${u.new}`)).flat();
}
const eventKey = (e: RefEvent) => `${e.repo} ${e._service.seq} ${e.ref_name} ${e.old}..${e.new}`;
const distinct = (events: readonly RefEvent[]) => [...new Set(events.map(eventKey))].sort();

/** Per repository, the acknowledged batches in arrival order: each sorted by seq, none starting past what came before. */
function checkOrder(r: WebhookReceiver, repo: string): void {
  let max = 0;
  for (const arrival of r.arrivals.filter((a) => a.acknowledged)) {
    const seqs = arrival.events.filter((e) => e.repo === repo).map((e) => Number(e._service.seq));
    if (seqs.length === 0) continue;
    expect(seqs, `${repo}: a batch in seq order`).toEqual([...seqs].sort((a, b) => a - b));
    expect(seqs[0], `${repo}: a batch starting past an undelivered seq`).toBeLessThanOrEqual(max + 1);
    max = Math.max(max, ...seqs);
  }
}

/** The highest seq such that every event of every entry up to it was acknowledged. */
function contiguousAcked(r: WebhookReceiver, repo: string): number {
  const acked = new Set(r.acknowledged(repo).map(eventKey));
  let seq = 0;
  while (seq < 20 && updatesOf(seq + 1).every((u) => acked.has(`${repo} ${seq + 1} ${u.ref} ${u.old}..${u.new}`))) seq++;
  return seq;
}

const metric = async (registry: Registry, name: string) => (await registry.getSingleMetric(name)?.get())?.values ?? [];

describe('the events bridge', () => {
  it('delivers every event at least once, in seq order per repository, none lost, to a receiver failing half the time (200 pushes, 10 repositories)', { timeout: 90_000 }, async () => {
    const bucket = await bucketOf('flaky');
    const r = await receiver();
    r.answer = () => (Math.random() < 0.5 ? 204 : Math.random() < 0.5 ? 500 : 'reset');
    const { bridge: b, registry, repos, store } = bridge(bucket, r.url);
    const names = Array.from({ length: 10 }, (_, i) => `flaky${randomBytes(3).toString('hex')}/r${i}`);
    await Promise.all(
      names.map(async (repo) => {
        await repos.createRepo(repo);
        for (let i = 1; i <= 20; i++) {
          await push(repos, repo, i);
          void b.wake(repo); // as a storage notification would, without waiting for the answer
        }
      }),
    );
    const expected = names.flatMap((repo) => expectedEvents(repo, 20)).sort();
    await r.until(() => distinct(r.acknowledged()).length === expected.length, 60_000);
    await b.drain(5000);

    expect(distinct(r.acknowledged())).toEqual(expected);
    for (const repo of names) checkOrder(r, repo);
    expect(r.arrivals.every((a) => a.signatureValid === true && !a.deliveryId.startsWith('mismatch'))).toBe(true);
    for (const repo of names) expect((await readCursor(store, eventsCursorKey(parseRepoPath(repo))))?.seq).toBe(20);
    expect((await metric(registry, 'events_bridge_lag_entries')).filter((v) => names.includes(String(v.labels.repo))).map((v) => v.value)).toEqual(names.map(() => 0));
    const outcomes = Object.fromEntries((await metric(registry, 'events_bridge_deliveries_total')).map((v) => [v.labels.outcome, v.value]));
    expect(outcomes.rejected ?? 0).toBeGreaterThan(0);
    console.log(`200 pushes, 10 repositories: ${r.arrivals.length} posts (${r.arrivals.filter((a) => a.acknowledged).length} acknowledged), outcomes ${JSON.stringify(outcomes)}`);
  });

  it('lets two bridges race on one bucket: no cursor ever passes an undelivered entry; duplicates, never loss', { timeout: 90_000 }, async () => {
    const bucket = await bucketOf('pair');
    const r = await receiver();
    r.answer = () => (Math.random() < 0.3 ? 500 : 204);
    const one = bridge(bucket, r.url);
    const two = bridge(bucket, r.url);
    const { store } = connect(bucket);
    const names = Array.from({ length: 5 }, (_, i) => `pair${randomBytes(3).toString('hex')}/r${i}`);
    let pushing = true;
    const violations: string[] = [];
    let checks = 0;
    // Watches every cursor while the bridges race: it must never be ahead of what the receiver acknowledged.
    const monitor = (async () => {
      while (pushing || names.some((repo) => contiguousAcked(r, repo) < 12)) {
        for (const repo of names) {
          const cursor = await readCursor(store, eventsCursorKey(parseRepoPath(repo)));
          const acked = contiguousAcked(r, repo);
          if (cursor && cursor.seq > acked) violations.push(`${repo}: cursor ${cursor.seq}, acknowledged through ${acked}`);
          checks++;
        }
      }
    })();
    await Promise.all(
      names.map(async (repo) => {
        await one.repos.createRepo(repo);
        for (let i = 1; i <= 12; i++) {
          await push(one.repos, repo, i);
          void one.bridge.wake(repo);
          void two.bridge.wake(repo);
        }
      }),
    );
    pushing = false;
    await monitor;
    await Promise.all([one.bridge.drain(5000), two.bridge.drain(5000)]);
    expect(violations).toEqual([]);
    expect(checks).toBeGreaterThan(names.length);
    expect(distinct(r.acknowledged())).toEqual(names.flatMap((repo) => expectedEvents(repo, 12)).sort());
    for (const repo of names) expect((await readCursor(store, eventsCursorKey(parseRepoPath(repo))))?.seq).toBe(12);
    const deliveries = r.acknowledged().length;
    console.log(
      `two bridges: ${deliveries} events acknowledged for ${names.length * expectedEvents('x', 12).length} distinct (${deliveries - names.length * expectedEvents('x', 12).length} duplicates), ${checks} cursor checks`,
    );
  });

  it('counts a gap left by log retention once, skips it, and never delivers the retired entries', { timeout: 60_000 }, async () => {
    const bucket = await bucketOf('gap');
    const r = await receiver();
    const { bridge: b, registry, store, repos } = bridge(bucket, r.url);
    const repo = `gap${randomBytes(3).toString('hex')}/app`;
    const key = eventsCursorKey(parseRepoPath(repo));
    await repos.createRepo(repo);
    for (let i = 1; i <= 3; i++) await push(repos, repo, i);
    expect(await b.wake(repo)).toMatchObject({ outcome: 'delivered', report: { emitted: 3, cursorSeq: 3 } });
    for (let i = 4; i <= 10; i++) await push(repos, repo, i);
    // The bridge lags (nothing woke it) while retention folds the log at seq 10. Retention never passes a cursor,
    // so it runs while no cursor is there (as before any bridge wrote one); then the lagging cursor is back.
    const lagging = await store.get(key);
    if (lagging?.kind !== 'object') throw new Error('expected the cursor');
    await store.delete(key);
    const workDir = await mkdtemp(join(tmpdir(), 'cw-events-gap-'));
    cleanups.push(() => rm(workDir, { recursive: true, force: true }));
    const maintenance = new RepoMaintenance({ repos, store, host: 'gap-test', workDir, logRetentionMs: 0 });
    // The first writes the checkpoint at 10; the second finds it old enough (retention 0) and retires 1..10.
    await maintenance.run(repo, 'checkpoint', silentContext());
    await maintenance.run(repo, 'checkpoint', silentContext());
    expect((await repos.readHead(repo, { fresh: true })).logStart).toBe(11);
    await store.put(key, lagging.body);

    const before = r.arrivals.length;
    expect(await b.wake(repo)).toMatchObject({ outcome: 'delivered', report: { fromSeq: 4, gap: { fromSeq: 4, toSeq: 10 }, emitted: 0, cursorSeq: 10 } });
    expect((await metric(registry, 'events_bridge_gap_total'))[0]?.value).toBe(7);
    expect(r.arrivals.length).toBe(before);
    await push(repos, repo, 11);
    expect(await b.wake(repo)).toMatchObject({ outcome: 'delivered', report: { fromSeq: 11, emitted: 1, cursorSeq: 11 } });
    expect((await b.wake(repo)).report?.gap).toBeUndefined();
    expect((await metric(registry, 'events_bridge_gap_total'))[0]?.value).toBe(7);
    expect(
      distinct(r.acknowledged())
        .map((e) => Number(e.split(' ')[1]))
        .sort((a, b) => a - b),
    ).toEqual([1, 2, 3, 11]);
  });

  it('emits nothing for a compaction, a checkpoint, a gc or a HEAD retarget, though each rewrites the manifest', { timeout: 60_000 }, async () => {
    const bucket = await bucketOf('quiet');
    const r = await receiver();
    const { bridge: b, store, repos } = bridge(bucket, r.url);
    const repo = `quiet${randomBytes(3).toString('hex')}/app`;
    await repos.createRepo(repo);
    for (let i = 1; i <= 17; i++) await push(repos, repo, i);
    expect(await b.wake(repo)).toMatchObject({ outcome: 'delivered', report: { emitted: expectedEvents(repo, 17).length } });
    const posts = r.arrivals.length;
    const workDir = await mkdtemp(join(tmpdir(), 'cw-events-quiet-'));
    cleanups.push(() => rm(workDir, { recursive: true, force: true }));
    const maintenance = new RepoMaintenance({ repos, store, host: 'quiet-test', workDir, logRetentionMs: 0, graceMs: 0 });
    const path = parseRepoPath(repo);
    const retarget = async () => {
      const got = await store.get(manifestKey(path));
      if (got?.kind !== 'object') throw new Error('no manifest');
      const manifest = decodeManifest(manifestKey(path), got.body);
      const put = await store.put(manifestKey(path), encodeManifest({ ...manifest, headRef: 'refs/heads/trunk', updatedAt: new Date().toISOString() }), { ifMatch: got.etag });
      expect(put.kind).toBe('written');
    };
    const changes: [string, () => Promise<unknown>, boolean][] = [
      ['compaction', () => maintenance.run(repo, 'compact', silentContext()), true],
      ['checkpoint', () => maintenance.run(repo, 'checkpoint', silentContext()), true],
      ['gc', () => maintenance.run(repo, 'gc', silentContext()), false],
      ['HEAD retarget', retarget, true],
    ];
    for (const [what, change, rewritesManifest] of changes) {
      const before = await store.head(manifestKey(path));
      await change();
      // A manifest write is what a storage notification reports: the bridge is woken, and finds nothing to send.
      if (rewritesManifest) expect((await store.head(manifestKey(path)))?.etag, `${what} rewrites the manifest`).not.toBe(before?.etag);
      expect(await b.wake(repo), what).toMatchObject({ outcome: 'delivered', report: { emitted: 0, posts: 0, headSeq: 17, cursorSeq: 17 } });
    }
    expect((await repos.readHead(repo, { fresh: true })).packs).toHaveLength(1);
    expect(r.arrivals.length).toBe(posts);
  });

  it('keeps the cursor when the webhook does not answer within the time-out, and retries after a backoff', { timeout: 30_000 }, async () => {
    const bucket = await bucketOf('slow');
    const r = await receiver();
    r.answer = () => (r.arrivals.length === 1 ? 'hold' : 204);
    const { bridge: b, registry, store, repos } = bridge(bucket, r.url, { client: new DeliveryClient({ policy: open, answerTimeoutMs: 300 }), backoff: { baseMs: 400, maxMs: 400 } });
    const repo = `slow${randomBytes(3).toString('hex')}/app`;
    await repos.createRepo(repo);
    await push(repos, repo, 1);
    const failed = await b.wake(repo);
    expect(failed).toMatchObject({ outcome: 'failed', reason: 'the webhook did not answer within 300 ms', report: { cursorSeq: 0 } });
    expect(await readCursor(store, eventsCursorKey(parseRepoPath(repo)))).toBeUndefined();
    // A wake-up during the backoff is deferred, not another post; the retry comes by itself after it.
    expect(await b.wake(repo)).toMatchObject({ outcome: 'deferred', reason: 'the webhook did not answer within 300 ms', retryInMs: expect.any(Number) });
    expect(r.arrivals).toHaveLength(1);
    await r.until(() => r.acknowledged(repo).length === 1);
    await b.drain(5000); // the retry's catch-up has ended: its cursor and counters are written
    expect((await readCursor(store, eventsCursorKey(parseRepoPath(repo))))?.seq).toBe(1);
    expect(r.arrivals[1]?.deliveryId).toBe(r.arrivals[0]?.deliveryId);
    expect(Object.fromEntries((await metric(registry, 'events_bridge_deliveries_total')).map((v) => [v.labels.outcome, v.value]))).toMatchObject({ timeout: 1, delivered: 1 });
  });

  it("holds an owner whose receiver never answers to its share, one person's owners together: another's delivery, woken later, arrives at once", { timeout: 30_000 }, async () => {
    const bucket = await bucketOf('share');
    const slow = await receiver();
    slow.answer = () => 'hold';
    const fast = await receiver();
    const [toSlow, toFast] = [configuredWebhook(slow.url, SECRET), configuredWebhook(fast.url, SECRET)];
    const tag = randomBytes(3).toString('hex');
    // Two owners (projects) of one person, two repositories each: keyed by owner alone they would take all four slots.
    const hostile = Array.from({ length: 4 }, (_, i) => `slow${i % 2}${tag}/r${i}`);
    const other = `fast${tag}/app`;
    // A time-out far past the test's waits: the slow owner's posts hold their slots throughout.
    const { bridge: b, repos } = bridge(bucket, slow.url, {
      targets: (repo) => [repo.startsWith('slow') ? toSlow : toFast],
      client: new DeliveryClient({ policy: open, answerTimeoutMs: 60_000 }),
      shareOf: (owner) => (owner.startsWith('slow') ? 'user:mallory' : owner),
    });
    for (const repo of [...hostile, other]) {
      await repos.createRepo(repo);
      await push(repos, repo, 1);
    }
    const held = hostile.map((repo) => b.wake(repo));
    await slow.until(() => slow.arrivals.length === 2);
    // Queued after the slow owner's other two, it is not held behind them: it takes one of the two slots left.
    const delivered = b.wake(other);
    await fast.until(() => fast.acknowledged(other).length === 1, 5000);
    expect(await delivered).toMatchObject({ outcome: 'delivered', report: { emitted: 1 } });
    expect(slow.arrivals).toHaveLength(2);
    slow.answer = () => 204;
    for (const arrival of slow.arrivals.slice(0, 2)) slow.release(arrival);
    expect(await Promise.all(held)).toEqual(hostile.map((repo) => expect.objectContaining({ repo, outcome: 'delivered' })));
    expect(slow.arrivals).toHaveLength(4);
  });

  it("ends a catch-up's turn after a post past its time and queues the rest, delivered in order", { timeout: 30_000 }, async () => {
    const bucket = await bucketOf('turn');
    const r = await receiver();
    const { bridge: b, repos } = bridge(bucket, r.url, { turnMs: 0, batchEvents: 5 });
    const repo = `turn${randomBytes(3).toString('hex')}/app`;
    await repos.createRepo(repo);
    for (let i = 1; i <= 12; i++) await push(repos, repo, i);
    expect(await b.wake(repo)).toMatchObject({ outcome: 'delivered', report: { posts: 1, yielded: true } });
    await r.until(() => distinct(r.acknowledged(repo)).length === expectedEvents(repo, 12).length);
    expect(distinct(r.acknowledged(repo))).toEqual(expectedEvents(repo, 12).sort());
    checkOrder(r, repo);
  });

  it('refuses a webhook on an internal address unless private targets are allowed, sending nothing', { timeout: 30_000 }, async () => {
    const bucket = await bucketOf('ssrf');
    const r = await receiver();
    const { bridge: strict, repos } = bridge(bucket, r.url, { client: new DeliveryClient() });
    const repo = `ssrf${randomBytes(3).toString('hex')}/app`;
    await repos.createRepo(repo);
    await push(repos, repo, 1);
    const refused = await strict.wake(repo);
    expect(refused).toMatchObject({ outcome: 'failed', report: { failure: { kind: 'refused_target' } } });
    expect(refused.reason).toBe(
      'delivery refused: the webhook host 127.0.0.1 resolves to 127.0.0.1, in 127.0.0.0/8 (loopback); set events.allow_private_targets: true to deliver to internal addresses',
    );
    expect(r.arrivals).toEqual([]);
    expect(await bridge(bucket, r.url).bridge.wake(repo)).toMatchObject({ outcome: 'delivered', report: { emitted: 1 } });
  });

  it('sweeps every repository of the bucket, counting those it found behind', { timeout: 30_000 }, async () => {
    const bucket = await bucketOf('sweep');
    const r = await receiver();
    const { bridge: b, registry, repos } = bridge(bucket, r.url);
    const names = [`sweep${randomBytes(3).toString('hex')}/a`, `sweep${randomBytes(3).toString('hex')}/b`];
    for (const repo of names) {
      await repos.createRepo(repo);
      await push(repos, repo, 1);
    }
    const report = await b.sweep();
    expect(report.delivered).toBe(2);
    expect((await metric(registry, 'events_bridge_sweep_found_total'))[0]?.value).toBe(2);
    expect(distinct(r.acknowledged())).toEqual(names.flatMap((repo) => expectedEvents(repo, 1)).sort());
    expect((await b.sweep()).delivered).toBe(0);
    expect((await metric(registry, 'events_bridge_sweep_found_total'))[0]?.value).toBe(2);
  });

  it("times the next sweep from when the last one listed, not from when a slow receiver's catch-up ends", { timeout: 30_000 }, async () => {
    const bucket = await bucketOf('sweep-slow');
    const slow = await receiver();
    slow.answer = () => 'hold';
    const repo = `sweepslow${randomBytes(3).toString('hex')}/a`;
    let listings = 0;
    // The receiver holds its answer far past the test: the first sweep's catch-up never ends within it.
    const { bridge: b, repos } = bridge(bucket, slow.url, {
      client: new DeliveryClient({ policy: open, answerTimeoutMs: 60_000 }),
      sweepIntervalMs: 100,
      repositories: () => {
        listings++;
        return [repo];
      },
    });
    await repos.createRepo(repo);
    await push(repos, repo, 1);
    b.start();
    await slow.until(() => slow.arrivals.length === 1);
    await expect.poll(() => listings, { timeout: 5000 }).toBeGreaterThanOrEqual(3);
    // Swept again and again, the repository is still one catch-up: its post is not repeated while it is held.
    expect(slow.arrivals).toHaveLength(1);
    slow.answer = () => 204;
    slow.release(slow.arrivals[0]!);
  });

  it('drains: takes no wake-up, gives up the post under way past the bound, cursor unmoved', { timeout: 30_000 }, async () => {
    const bucket = await bucketOf('drain');
    const r = await receiver();
    r.answer = () => 'hold';
    const { bridge: b, store, repos } = bridge(bucket, r.url);
    const repo = `drain${randomBytes(3).toString('hex')}/app`;
    await repos.createRepo(repo);
    await push(repos, repo, 1);
    const pending = b.wake(repo);
    await r.until(() => r.arrivals.length === 1);
    await b.drain(200);
    expect(await pending).toMatchObject({ outcome: 'abandoned', report: { cursorSeq: 0, failure: { kind: 'aborted' } } });
    expect(await b.wake(repo)).toMatchObject({ outcome: 'abandoned' });
    expect(await readCursor(store, eventsCursorKey(parseRepoPath(repo)))).toBeUndefined();
  });
});
