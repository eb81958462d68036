// gc against the in-memory bucket with a clock the test moves: which unlisted packs it keeps for their grace period.
import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { MemoryObjectStore } from '../object-store/memory-object-store.ts';
import { packIndexKey, packKey, parseRepoPath, RepoStore, zeroOid } from '../repo-store/index.ts';
import { RepoMaintenance, silentContext } from './index.ts';

const HOUR = 60 * 60 * 1000;
const oid = (digit: string) => digit.repeat(40);

describe('gc', () => {
  it('keeps the pack of a push that lost for a grace period from its last upload: the same push sent again rewrites it', async () => {
    let clock = Date.parse('2026-12-01T00:00:00Z');
    const now = () => new Date(clock);
    const store = new MemoryObjectStore({ now });
    const repos = new RepoStore({ store, registry: new Registry(), now });
    const maintenance = new RepoMaintenance({ repos, store, host: 'gc-test', workDir: '/nonexistent', graceMs: HOUR, now });
    const repo = 'acme/site';
    const path = parseRepoPath(repo);
    await repos.createRepo(repo);
    const push = (old: string, pack: string) =>
      repos.publish(repo, {
        kind: 'push',
        refUpdates: [{ ref: 'refs/heads/main', old, new: oid('b') }],
        pack: { body: new TextEncoder().encode(pack), idx: new TextEncoder().encode(`${pack} index`) },
        pusher: 't',
        requestId: pack,
        atomic: true,
      });
    await repos.publish(repo, { kind: 'push', refUpdates: [{ ref: 'refs/heads/main', old: zeroOid('sha1'), new: oid('a') }], pusher: 't', requestId: 'first', atomic: true });

    // Stale: main is at a, not zero. The pack went up and no entry names it.
    expect((await push(zeroOid('sha1'), 'lost pack')).outcome).toBe('rejected');
    const sha256 = (await store.list(`repos/acme/site/packs/`)).items.map((item) => /([0-9a-f]{64})\.pack$/.exec(item.key)?.[1]).find(Boolean) ?? '';
    expect(sha256).toMatch(/^[0-9a-f]{64}$/);
    const present = async () => [(await store.head(packKey(path, sha256))) !== undefined, (await store.head(packIndexKey(path, sha256))) !== undefined];

    // Half an hour later the same push is sent again, and loses again: its pack is written again.
    clock += HOUR / 2;
    expect((await push(zeroOid('sha1'), 'lost pack')).outcome).toBe('rejected');
    // An hour after the first upload, but not after the second: the pack stays, with its index.
    clock += HOUR / 2 + 60_000;
    await maintenance.run(repo, 'gc', silentContext());
    expect(await present()).toEqual([true, true]);
    // An hour after the second: both go.
    clock += HOUR / 2;
    await maintenance.run(repo, 'gc', silentContext());
    expect(await present()).toEqual([false, false]);
    expect((await repos.readHead(repo, { fresh: true })).refs.get('refs/heads/main')).toBe(oid('a'));
  });
});
