// gc against the in-memory bucket with a clock the test moves: which unlisted packs it keeps for their grace period,
// and that it never deletes a pack a publish names.
import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { MemoryObjectStore } from '../object-store/memory-object-store.ts';
import { ForwardingObjectStore } from '../object-store/testing/forwarding-object-store.ts';
import type { ObjectStore } from '../object-store/object-store.ts';
import { packIndexKey, packKey, parseRepoPath, RepoStore, zeroOid, type PackObject } from '../repo-store/index.ts';
import { RepoMaintenance, silentContext } from './index.ts';

const HOUR = 60 * 60 * 1000;
const oid = (digit: string) => digit.repeat(40);
const repo = 'acme/site';
const path = parseRepoPath(repo);

/** A repository with main at a, a clock the test moves, and a push of main to b carrying `pack`. */
async function setup(wrap: (store: MemoryObjectStore) => ObjectStore = (store) => store) {
  let clock = Date.parse('2026-12-01T00:00:00Z');
  const now = () => new Date(clock);
  const memory = new MemoryObjectStore({ now });
  const store = wrap(memory);
  const repos = new RepoStore({ store, registry: new Registry(), now });
  const maintenance = new RepoMaintenance({ repos, store, host: 'gc-test', workDir: '/nonexistent', graceMs: HOUR, now });
  await repos.createRepo(repo);
  await repos.publish(repo, { kind: 'push', refUpdates: [{ ref: 'refs/heads/main', old: zeroOid('sha1'), new: oid('a') }], pusher: 't', requestId: 'first', atomic: true });
  const push = (old: string, pack: string) =>
    repos.publish(repo, {
      kind: 'push',
      refUpdates: [{ ref: 'refs/heads/main', old, new: oid('b') }],
      pack: { body: new TextEncoder().encode(pack), idx: new TextEncoder().encode(`${pack} index`) },
      pusher: 't',
      requestId: pack,
      atomic: true,
    });
  const present = async (pack: PackObject) => [(await memory.head(packKey(path, pack))) !== undefined, (await memory.head(packIndexKey(path, pack))) !== undefined];
  const packObjects = async () => (await memory.list(`repos/acme/site/packs/`)).items.map((item) => item.key.slice('repos/acme/site/packs/'.length));
  return { memory, repos, maintenance, push, present, packObjects, tick: (ms: number) => (clock += ms) };
}

describe('gc', () => {
  it('keeps the pack of a push that lost for a grace period from its upload: the same push sent again writes a copy, kept for its own', async () => {
    const { maintenance, repos, push, present, packObjects, tick } = await setup();
    // Stale: main is at a, not zero. The pack went up and no entry names it.
    expect((await push(zeroOid('sha1'), 'lost pack')).outcome).toBe('rejected');
    const [first] = await packObjects();
    const sha256 = /^([0-9a-f]{64})\.idx$/.exec(first ?? '')?.[1] ?? '';
    expect(sha256).toMatch(/^[0-9a-f]{64}$/);

    // Half an hour later the same push is sent again, and loses again: the pack is there, so it goes under a copy's key.
    tick(HOUR / 2);
    expect((await push(zeroOid('sha1'), 'lost pack')).outcome).toBe('rejected');
    const copies = (await packObjects()).map((name) => /^[0-9a-f]{64}\.([0-9a-f]{16})\.pack$/.exec(name)?.[1]).filter((copy) => copy !== undefined);
    expect(copies).toHaveLength(1);
    const copy = { sha256, copy: copies[0] as string };
    // An hour after the first upload, but not after the second: the first goes, the copy stays, with its index.
    tick(HOUR / 2 + 60_000);
    await maintenance.run(repo, 'gc', silentContext());
    expect([await present({ sha256 }), await present(copy)]).toEqual([
      [false, false],
      [true, true],
    ]);
    // An hour after the second: the copy goes too.
    tick(HOUR / 2);
    await maintenance.run(repo, 'gc', silentContext());
    expect(await packObjects()).toEqual([]);
    expect((await repos.readHead(repo, { fresh: true })).refs.get('refs/heads/main')).toBe(oid('a'));
  });

  it('does not delete the pack of a push sent again and published while gc deletes the orphan the first try left', async () => {
    // gc's deletes wait, at the first pack, for the same push sent again: it uploads, claims its slot and swaps the
    // manifest after gc's last look at the head, and is acknowledged before gc deletes anything.
    let republish: (() => Promise<unknown>) | undefined;
    let republished: Promise<unknown> | undefined;
    class RepublishBeforePackDeletes extends ForwardingObjectStore {
      override async delete(key: string) {
        if (republish && key.includes('/packs/')) await (republished ??= republish());
        return super.delete(key);
      }
    }
    const { maintenance, repos, push, present, tick } = await setup((memory) => new RepublishBeforePackDeletes(memory));
    expect((await push(zeroOid('sha1'), 'the pack')).outcome).toBe('rejected');
    tick(2 * HOUR); // the orphan is past its grace period: a gc candidate
    republish = () => push(oid('a'), 'the pack');
    await maintenance.run(repo, 'gc', silentContext());
    expect(await republished).toMatchObject({ outcome: 'published', seq: 2 });

    const head = await repos.readHead(repo, { fresh: true });
    expect(head.refs.get('refs/heads/main')).toBe(oid('b'));
    expect(head.packs).toHaveLength(1);
    const pack = head.packs[0] as PackObject;
    expect(await present(pack)).toEqual([true, true]);
    expect(Buffer.from((await repos.readPack(repo, pack)) ?? []).toString()).toBe('the pack');
    expect(Buffer.from((await repos.readPackIndex(repo, pack)) ?? []).toString()).toBe('the pack index');
    // The orphan itself went: a copy of the same bytes is not a reason to keep it.
    expect(await present({ sha256: pack.sha256 })).toEqual([false, false]);
  });

  it('marks for gc the copy a push of a pack already live leaves, and gc leaves the one pack (found in review: copies nobody counted piled up)', async () => {
    const { maintenance, repos, push, packObjects, tick } = await setup();
    expect((await push(oid('a'), 'the pack')).outcome).toBe('published');
    const branch = (name: string) =>
      repos.publish(repo, {
        kind: 'push',
        refUpdates: [{ ref: `refs/heads/${name}`, old: zeroOid('sha1'), new: oid('b') }],
        pack: { body: new TextEncoder().encode('the pack'), idx: new TextEncoder().encode('the pack index') },
        pusher: 't',
        requestId: name,
        atomic: true,
      });
    for (const name of ['one', 'two', 'three']) expect((await branch(name)).outcome).toBe('published');
    // Each push stored its copy beside the live pack, which the head lists once: the repository is marked.
    expect(await packObjects()).toHaveLength(8);
    expect((await repos.listPending()).map((m) => m.repo)).toContain(repo);
    tick(2 * HOUR);
    await maintenance.run(repo, 'gc', silentContext());
    const head = await repos.readHead(repo, { fresh: true });
    expect(head.packs).toHaveLength(1);
    expect((await packObjects()).sort()).toEqual([`${head.packs[0]?.sha256}.idx`, `${head.packs[0]?.sha256}.pack`]);
  });
});
