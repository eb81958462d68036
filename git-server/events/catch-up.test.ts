import { beforeEach, describe, expect, it } from 'vitest';
import { Registry } from 'prom-client';
import { MemoryObjectStore } from '../../src/object-store/memory-object-store.ts';
import { eventsCursorKey } from '../../src/repo-store/layout.ts';
import { parseRepoPath } from '../../src/repo-store/repo-path.ts';
import { RepoStore } from '../../src/repo-store/repo-store.ts';
import { catchUp, type CatchUpDependencies } from './catch-up.ts';
import { moveCursor, readCursor } from './cursor.ts';
import type { DeliveryOutcome } from './delivery-client.ts';
import { configuredWebhook } from './delivery-target.ts';
import type { RefEvent } from './ref-event.ts';
import { deliveryId } from './signing.ts';

const Z = '0'.repeat(40);
const oid = (n: number) => n.toString(16).padStart(40, 'a');
const target = configuredWebhook('https://hooks.example.test/x', 'secret');
const repo = 'acme/site';
const key = eventsCursorKey(parseRepoPath(repo));

let store: MemoryObjectStore;
let repos: RepoStore;
let posts: { body: Buffer; events: RefEvent[] }[];
let answers: DeliveryOutcome['kind'][];

const ok: DeliveryOutcome = { kind: 'delivered', status: 200, durationMs: 1, responseBytes: 0 };
const deps = (): CatchUpDependencies => ({
  repos,
  store,
  batchEvents: 5,
  post: async (_target, body) => {
    const kind = answers.shift() ?? 'delivered';
    posts.push({ body: Buffer.from(body), events: JSON.parse(Buffer.from(body).toString()) as RefEvent[] });
    return kind === 'delivered' ? ok : { kind: 'rejected', status: 500, durationMs: 1, responseBytes: 0 };
  },
});
const seqsOf = (events: RefEvent[]) => events.map((e) => Number(e._service.seq));

/** `n` ref_update entries, each moving main one step (the first creates it). */
async function advanceMain(n: number, from = 0): Promise<void> {
  for (let i = from + 1; i <= from + n; i++) {
    await repos.publish(repo, { kind: 'ref_update', refUpdates: [{ ref: 'refs/heads/main', old: i === 1 ? Z : oid(i - 1), new: oid(i) }], pusher: 'ada', requestId: `req-${i}`, atomic: true });
  }
}

beforeEach(async () => {
  store = new MemoryObjectStore();
  repos = new RepoStore({ store, registry: new Registry() });
  posts = [];
  answers = [];
  await repos.createRepo(repo);
});

describe('catchUp', () => {
  it('delivers from the first kept entry when there is no cursor, then creates it; a second catch-up posts nothing', async () => {
    await advanceMain(3);
    const report = await catchUp(deps(), target, repo);
    expect(report).toEqual({ repo, fromSeq: 1, headSeq: 3, cursorSeq: 3, emitted: 3, posts: 1 });
    expect(posts[0]?.events.map((e) => [e.action, e.ref_name, e._service.seq, e.correlation_id])).toEqual([
      ['create', 'refs/heads/main', '1', 'req-1'],
      ['update', 'refs/heads/main', '2', 'req-2'],
      ['update', 'refs/heads/main', '3', 'req-3'],
    ]);
    expect((await readCursor(store, key))?.seq).toBe(3);
    expect(await catchUp(deps(), target, repo)).toEqual({ repo, fromSeq: 4, headSeq: 3, cursorSeq: 3, emitted: 0, posts: 0 });
    expect(posts).toHaveLength(1);
  });

  it('keeps the cursor when the webhook does not acknowledge; the retry posts the same batch', async () => {
    await advanceMain(2);
    answers = ['rejected'];
    const failed = await catchUp(deps(), target, repo);
    expect(failed).toMatchObject({ fromSeq: 1, cursorSeq: 0, emitted: 0, failure: { kind: 'rejected', status: 500 } });
    expect(await readCursor(store, key)).toBeUndefined();
    expect(await catchUp(deps(), target, repo)).toMatchObject({ fromSeq: 1, cursorSeq: 2, emitted: 2 });
    expect(deliveryId(posts[1]!.body)).toBe(deliveryId(posts[0]!.body));
  });

  it('posts a long range as several batches in order, moving the cursor after each acknowledged one', async () => {
    await advanceMain(12);
    answers = ['delivered', 'rejected'];
    const first = await catchUp(deps(), target, repo);
    expect(first).toMatchObject({ cursorSeq: 5, emitted: 5, posts: 1, failure: { kind: 'rejected' } });
    expect((await readCursor(store, key))?.seq).toBe(5);
    const second = await catchUp(deps(), target, repo);
    expect(second).toMatchObject({ fromSeq: 6, cursorSeq: 12, emitted: 7, posts: 2 });
    expect(posts.map((p) => seqsOf(p.events))).toEqual([
      [1, 2, 3, 4, 5],
      [6, 7, 8, 9, 10],
      [6, 7, 8, 9, 10],
      [11, 12],
    ]);
  });

  it('never splits an entry: one with more updates than a batch holds goes alone', async () => {
    await advanceMain(2);
    const tags = Array.from({ length: 7 }, (_, i) => ({ ref: `refs/tags/t${i}`, old: Z, new: oid(1) }));
    await repos.publish(repo, { kind: 'push', refUpdates: tags, pusher: 'ada', requestId: 'tags', atomic: true });
    await advanceMain(1, 2);
    await catchUp(deps(), target, repo);
    expect(posts.map((p) => seqsOf(p.events))).toEqual([[1, 2], [3, 3, 3, 3, 3, 3, 3], [4]]);
    expect(posts[1]?.events.every((e) => e.action === 'create' && e.ref_type === 'tag')).toBe(true);
  });

  it('counts a cursor behind the kept log as a gap, skips it once, and never fills it', async () => {
    await advanceMain(2);
    await catchUp(deps(), target, repo); // cursor at 2
    await advanceMain(6, 2); // 3..8
    const head = await repos.readHead(repo, { fresh: true });
    await repos.amendHead(repo, head.repoId, () => ({ checkpoint: { seq: 5 }, logStart: 6 }));
    answers = ['rejected'];
    const first = await catchUp(deps(), target, repo);
    expect(first).toMatchObject({ fromSeq: 3, gap: { fromSeq: 3, toSeq: 5 }, cursorSeq: 5, failure: { kind: 'rejected' } });
    expect((await readCursor(store, key))?.seq).toBe(5); // the skip is durable even though the delivery failed
    const second = await catchUp(deps(), target, repo);
    expect(second).toEqual({ repo, fromSeq: 6, headSeq: 8, cursorSeq: 8, emitted: 3, posts: 1 });
    expect(posts.map((p) => seqsOf(p.events))).toEqual([
      [1, 2],
      [6, 7, 8],
      [6, 7, 8],
    ]);
  });

  it('starts a repository without a cursor at its first kept entry, with no gap', async () => {
    await advanceMain(4);
    const head = await repos.readHead(repo, { fresh: true });
    await repos.amendHead(repo, head.repoId, () => ({ checkpoint: { seq: 2 }, logStart: 3 }));
    expect(await catchUp(deps(), target, repo)).toEqual({ repo, fromSeq: 3, headSeq: 4, cursorSeq: 4, emitted: 2, posts: 1 });
  });

  it('ignores the cursor of another incarnation, and replaces it', async () => {
    await advanceMain(2);
    await moveCursor(store, key, undefined, { seq: 40, repoId: 'an-old-incarnation', now: new Date() });
    expect(await catchUp(deps(), target, repo)).toMatchObject({ fromSeq: 1, cursorSeq: 2, emitted: 2 });
    expect((await readCursor(store, key))?.repoId).toBe((await repos.readHead(repo)).repoId);
  });

  it('a cursor another bridge moves while this one reads the head is caught up, never replayed nor moved back', async () => {
    await advanceMain(10);
    await catchUp(deps(), target, repo);
    posts = [];
    // Between this bridge's head read and its answer, a push lands and another bridge delivers it.
    let raced = false;
    const racing: CatchUpDependencies['repos'] = {
      readHead: async (name, options) => {
        const read = await repos.readHead(name, options);
        if (!raced) {
          raced = true;
          await advanceMain(1, 10);
          await catchUp(deps(), target, repo);
        }
        return read;
      },
      listLog: (name, from, options) => repos.listLog(name, from, options),
    };
    await catchUp({ ...deps(), repos: racing }, target, repo);
    expect(posts.map((p) => seqsOf(p.events))).toEqual([[11]]);
    expect((await readCursor(store, key))?.seq).toBe(11);
  });

  it("counts its own incarnation's cursor even ahead of a head read too early: caught up, nothing written", async () => {
    await advanceMain(10);
    const early = await repos.readHead(repo, { fresh: true });
    await advanceMain(1, 10);
    await catchUp(deps(), target, repo);
    posts = [];
    const behind: CatchUpDependencies['repos'] = { readHead: async () => early, listLog: (name, from, options) => repos.listLog(name, from, options) };
    expect(await catchUp({ ...deps(), repos: behind }, target, repo)).toMatchObject({ headSeq: 10, cursorSeq: 11, emitted: 0, posts: 0 });
    expect(posts).toEqual([]);
    expect((await readCursor(store, key))?.seq).toBe(11);
  });

  it('yields past its time once it posted, never before: the cursor moves each turn; reaching the head is no yield', async () => {
    await advanceMain(12);
    let clock = 0;
    const slow: CatchUpDependencies = { ...deps(), now: () => new Date(clock), post: async (t, body, signal) => ((clock += 1000), deps().post(t, body, signal)) };
    expect(await catchUp(slow, target, repo, { yieldAt: 0 })).toMatchObject({ cursorSeq: 5, posts: 1, yielded: true });
    const rest = await catchUp(slow, target, repo, { yieldAt: clock + 1500 });
    expect(rest).toMatchObject({ fromSeq: 6, cursorSeq: 12, posts: 2 });
    expect(rest.yielded).toBeUndefined();
  });

  it('starts no further batch once stopping, and abandons the post under way when aborted', async () => {
    await advanceMain(12);
    const stopping = new AbortController();
    const stopAfterFirst: CatchUpDependencies = { ...deps(), post: async (t, body, signal) => (stopping.abort(), deps().post(t, body, signal)) };
    expect(await catchUp(stopAfterFirst, target, repo, { stopping: stopping.signal })).toMatchObject({ cursorSeq: 5, posts: 1 });
    const abort = new AbortController();
    let posting: () => void = () => {};
    const posted = new Promise<void>((resolve) => (posting = resolve));
    const hanging: CatchUpDependencies = {
      ...deps(),
      post: (_t, _b, signal) =>
        new Promise((resolve) => {
          signal?.addEventListener('abort', () => resolve({ kind: 'aborted', durationMs: 1 }));
          posting();
        }),
    };
    const running = catchUp(hanging, target, repo, { abort: abort.signal });
    await posted;
    abort.abort();
    expect(await running).toMatchObject({ cursorSeq: 5, failure: { kind: 'aborted' } });
    expect((await readCursor(store, key))?.seq).toBe(5);
  });
});
