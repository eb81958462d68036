// What a per-repository webhook adds to a catch-up: its filter, its start time, its cursor of its own, and the
// batch handed to the post (for the delivery log).
import { beforeEach, describe, expect, it } from 'vitest';
import { Registry } from 'prom-client';
import { MemoryObjectStore } from '../../src/object-store/memory-object-store.ts';
import { eventsCursorKey, repoPrefix } from '../../src/repo-store/layout.ts';
import { parseRepoPath, type RepoPath } from '../../src/repo-store/repo-path.ts';
import { RepoStore } from '../../src/repo-store/repo-store.ts';
import { catchUp, type CatchUpDependencies, type PostedBatch } from './catch-up.ts';
import { readCursor } from './cursor.ts';
import { deliveryTarget, type DeliveryTargetOptions } from './delivery-target.ts';
import { eventFilter } from './event-filter.ts';
import type { RefEvent } from './ref-event.ts';
import { firstEntryAtOrAfter } from './start-point.ts';

const Z = '0'.repeat(40);
const oid = (n: number) => n.toString(16).padStart(40, 'a');
const repo = 'acme/site';
const hookCursor = (r: RepoPath) => `${repoPrefix(r)}events/webhooks/uid-1/cursor.json`;
const hook = (over: Partial<DeliveryTargetOptions> = {}) => deliveryTarget({ id: 'hook', url: 'https://hooks.example.test/x', secret: 's', cursorKey: hookCursor, ...over });

let store: MemoryObjectStore;
let repos: RepoStore;
let posts: { events: RefEvent[]; batch: PostedBatch | undefined }[];

const deps = (): CatchUpDependencies => ({
  repos,
  store,
  batchEvents: 5,
  post: async (_target, body, _signal, batch) => {
    posts.push({ events: JSON.parse(Buffer.from(body).toString()) as RefEvent[], batch });
    return { kind: 'delivered', status: 200, durationMs: 1, responseBytes: 0 };
  },
});

/** Entry `i` moves main; every even one also creates tag `v<i>`. */
async function publish(from: number, to: number): Promise<void> {
  for (let i = from; i <= to; i++) {
    const refUpdates = [{ ref: 'refs/heads/main', old: i === 1 ? Z : oid(i - 1), new: oid(i) }];
    if (i % 2 === 0) refUpdates.push({ ref: `refs/tags/v${i}`, old: Z, new: oid(i) });
    await repos.publish(repo, { kind: 'ref_update', refUpdates, pusher: 'ada', requestId: `req-${i}`, atomic: true });
  }
}

beforeEach(async () => {
  store = new MemoryObjectStore();
  repos = new RepoStore({ store, registry: new Registry() });
  posts = [];
  await repos.createRepo(repo);
});

describe('catchUp for a per-repository webhook', () => {
  it('posts only the events its filter passes, and moves its own cursor past the entries it skipped', async () => {
    await publish(1, 6);
    const report = await catchUp(deps(), hook({ filter: eventFilter({ actions: ['create'], refs: ['refs/tags/*'] }) }), repo);
    expect(report).toMatchObject({ emitted: 3, cursorSeq: 6 });
    expect(posts.flatMap((p) => p.events.map((e) => e.ref_name))).toEqual(['refs/tags/v2', 'refs/tags/v4', 'refs/tags/v6']);
    expect(posts[0]?.batch).toEqual({ repo, events: posts[0]?.events });
    expect((await readCursor(store, hookCursor(parseRepoPath(repo))))?.seq).toBe(6);
    expect(await readCursor(store, eventsCursorKey(parseRepoPath(repo)))).toBeUndefined();
  });

  it('moves its cursor without a post when nothing passes', async () => {
    await publish(1, 3);
    expect(await catchUp(deps(), hook({ filter: eventFilter({ refs: ['refs/notes/*'] }) }), repo)).toMatchObject({ emitted: 0, posts: 0, cursorSeq: 3 });
    expect(posts).toEqual([]);
  });

  it('starts at the first entry written since its start time, and keeps that place at once', async () => {
    await publish(1, 3);
    const third = (await repos.listLog(repo, 3, { limit: 1 })).entries[0];
    const since = new Date(Date.parse(third?.at ?? '') + 1);
    const target = hook({ since });
    expect(await catchUp(deps(), target, repo)).toMatchObject({ emitted: 0, cursorSeq: 3 });
    expect((await readCursor(store, hookCursor(parseRepoPath(repo))))?.seq).toBe(3);
    await publish(4, 4);
    expect(await catchUp(deps(), target, repo)).toMatchObject({ fromSeq: 4, emitted: 2, cursorSeq: 4 });
    expect(posts.flatMap((p) => p.events.map((e) => e._service.seq))).toEqual(['4', '4']);
  });

  it('keeps its cursor when it is ahead of a head read too early, instead of starting over from its start time', async () => {
    await publish(1, 3);
    const target = hook({ since: new Date(0) });
    const early = await repos.readHead(repo, { fresh: true });
    await publish(4, 5);
    await catchUp(deps(), target, repo);
    posts = [];
    const behind: CatchUpDependencies['repos'] = { readHead: async () => early, listLog: (name, from, options) => repos.listLog(name, from, options) };
    expect(await catchUp({ ...deps(), repos: behind }, target, repo)).toMatchObject({ cursorSeq: 5, posts: 0 });
    expect(posts).toEqual([]);
    expect((await readCursor(store, hookCursor(parseRepoPath(repo))))?.seq).toBe(5);
  });
});

describe('firstEntryAtOrAfter', () => {
  it('finds the first entry at or after a time, or the head plus one', async () => {
    await publish(1, 9);
    const head = await repos.readHead(repo);
    const times = (await repos.listLog(repo, 1, { limit: 9 })).entries.map((e) => Date.parse(e.at));
    expect(await firstEntryAtOrAfter(repos, repo, head, new Date(0))).toBe(1);
    expect(await firstEntryAtOrAfter(repos, repo, head, new Date((times[8] ?? 0) + 1))).toBe(10);
    const sixth = times[5] ?? 0;
    // Entries written in the same millisecond share a time: the first of them is the answer.
    expect(await firstEntryAtOrAfter(repos, repo, head, new Date(sixth))).toBe(times.indexOf(sixth) + 1);
  });
});
