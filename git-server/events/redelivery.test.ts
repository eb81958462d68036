import { Registry } from 'prom-client';
import { beforeEach, describe, expect, it } from 'vitest';
import { MemoryObjectStore } from '../../src/object-store/memory-object-store.ts';
import { RepoStore } from '../../src/repo-store/repo-store.ts';
import { eventFilter } from './event-filter.ts';
import { encodeBatch, refEventsOf } from './ref-event.ts';
import { rebuildPayload } from './redelivery.ts';
import { deliveryId } from './signing.ts';

const Z = '0'.repeat(40);
const oid = (n: number) => n.toString(16).padStart(40, 'b');
const repo = 'acme/site';
let repos: RepoStore;

beforeEach(async () => {
  repos = new RepoStore({ store: new MemoryObjectStore(), registry: new Registry() });
  await repos.createRepo(repo);
  for (let i = 1; i <= 4; i++) {
    const refUpdates = [
      { ref: 'refs/heads/main', old: i === 1 ? Z : oid(i - 1), new: oid(i) },
      { ref: `refs/tags/v${i}`, old: Z, new: oid(i) },
    ];
    await repos.publish(repo, { kind: 'ref_update', refUpdates, pusher: 'ada', requestId: `r${i}`, atomic: true });
  }
});

describe('rebuildPayload', () => {
  it('rebuilds the same bytes from the entries a delivery covered, through the same filter', async () => {
    const entries = (await repos.listLog(repo, 2, { limit: 2 })).entries;
    const filter = eventFilter({ refs: ['refs/tags/*'] });
    const body = encodeBatch(entries.flatMap((e) => refEventsOf(repo, e).filter(filter)));
    const got = await rebuildPayload(repos, repo, { filter }, { fromSeq: 2, toSeq: 3, deliveryId: deliveryId(body) });
    expect(got.kind === 'rebuilt' && got.body.equals(body)).toBe(true);
  });

  it('refuses what would be another payload (the filter changed), and what the log no longer holds', async () => {
    const entries = (await repos.listLog(repo, 2, { limit: 2 })).entries;
    const id = deliveryId(encodeBatch(entries.flatMap((e) => refEventsOf(repo, e))));
    expect(await rebuildPayload(repos, repo, { filter: eventFilter({ actions: ['create'] }) }, { fromSeq: 2, toSeq: 3, deliveryId: id })).toEqual({ kind: 'changed' });
    expect((await rebuildPayload(repos, repo, {}, { fromSeq: 2, toSeq: 3, deliveryId: id })).kind).toBe('rebuilt');
    expect(await rebuildPayload(repos, repo, {}, { fromSeq: 0, toSeq: 3, deliveryId: id })).toEqual({ kind: 'gone', logStart: 1 });
  });
});
