// The RepoStore scenarios, run on MemoryObjectStore (unit) and on MinIO (integration): concurrency through
// several instances, racing writers, crashes between the protocol's steps, lost responses, and the request
// budget of each operation.
import { createHash, randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { ObjectStore } from '../../object-store/object-store.ts';
import { listAll } from '../../object-store/list-all.ts';
import { CountingObjectStore } from '../../object-store/testing/counting-object-store.ts';
import { FaultObjectStore, SimulatedCrash } from '../../object-store/testing/fault-object-store.ts';
import { RepoExistsError, RepoNotFoundError } from '../errors.ts';
import { deletingKey, logKey, manifestKey, repoPrefix } from '../layout.ts';
import { encodeLogEntry } from '../log-entry.ts';
import type { PublishRequest, PublishResult } from '../publish.ts';
import { zeroOid, type RefUpdate } from '../refs.ts';
import { parseRepoPath } from '../repo-path.ts';
import { RepoStore } from '../repo-store.ts';

export interface ScenarioSubject {
  /** A new client of the shared bucket: what a second cw-git process would have. */
  connect(): ObjectStore;
}

export const Z = zeroOid('sha1');

/** A sha1-shaped oid named by `label`. */
export function oid(label: string): string {
  return createHash('sha1').update(label).digest('hex');
}

export function newRepoName(): string {
  return `t${randomBytes(5).toString('hex')}/repo`;
}

export function update(updates: RefUpdate[], extra: Partial<PublishRequest> = {}): PublishRequest {
  return { kind: 'ref_update', refUpdates: updates, pusher: 'alice', requestId: `req-${randomBytes(4).toString('hex')}`, atomic: true, ...extra };
}

export function smallPack(): NonNullable<PublishRequest['pack']> {
  return { body: randomBytes(200), idx: randomBytes(64) };
}

function published(result: PublishResult): number {
  if (result.outcome !== 'published') throw new Error(`expected published, got ${result.outcome}: ${JSON.stringify(result.refs)}`);
  return result.seq;
}

/** Registers the scenarios; `subject` is called inside each test. */
export function describeRepoStoreScenarios(name: string, subject: () => ScenarioSubject): void {
  describe(`RepoStore scenarios: ${name}`, () => {
    it('creates a pristine repository once, visible to every instance', async () => {
      const s = subject();
      const [a, b] = [new RepoStore({ store: s.connect() }), new RepoStore({ store: s.connect() })];
      const repo = newRepoName();
      const created = await a.createRepo(repo, { headRef: 'refs/heads/trunk' });
      expect(created).toMatchObject({ repo, seq: 0, logStart: 1, headRef: 'refs/heads/trunk', objectFormat: 'sha1', packs: [], checkpoint: null });
      await expect(b.createRepo(repo)).rejects.toBeInstanceOf(RepoExistsError);
      expect((await b.readHead(repo)).repoId).toBe(created.repoId);
      await expect(b.readHead(newRepoName())).rejects.toBeInstanceOf(RepoNotFoundError);
      await expect(b.publish(newRepoName(), update([{ ref: 'refs/heads/main', old: Z, new: oid('x') }]))).rejects.toBeInstanceOf(RepoNotFoundError);
    });

    it('publishes pushes and ref updates, and reads them back by head, log, seq and pack', async () => {
      const s = subject();
      const [a, b] = [new RepoStore({ store: s.connect() }), new RepoStore({ store: s.connect() })];
      const repo = newRepoName();
      await a.createRepo(repo);
      const pack = smallPack();
      const first = await a.publish(repo, update([{ ref: 'refs/heads/main', old: Z, new: oid('c1') }], { kind: 'push', pack, requestId: 'r1', pusher: 'alice' }));
      expect(published(first)).toBe(1);
      const second = await b.publish(
        repo,
        update([
          { ref: 'refs/heads/main', old: oid('c1'), new: oid('c2') },
          { ref: 'refs/tags/v1', old: Z, new: oid('c1') },
        ]),
      );
      expect(published(second)).toBe(2);
      const third = await a.publish(repo, update([{ ref: 'refs/tags/v1', old: oid('c1'), new: Z }]));
      expect(published(third)).toBe(3);

      const head = await a.readHead(repo);
      expect(head.seq).toBe(3);
      expect([...head.refs]).toEqual([['refs/heads/main', oid('c2')]]);
      expect(head.packs).toEqual([
        {
          sha256: createHash('sha256')
            .update(pack.body as Uint8Array)
            .digest('hex'),
          size: 200,
          idxSize: 64,
          seq: 1,
        },
      ]);
      expect(Buffer.from((await b.readPack(repo, head.packs[0]!))!).equals(pack.body as Uint8Array)).toBe(true);
      expect(Buffer.from((await b.readPackIndex(repo, head.packs[0]!))!).equals(pack.idx as Uint8Array)).toBe(true);

      const page = await b.listLog(repo, 1);
      expect(page).toMatchObject({ headSeq: 3, logStart: 1 });
      expect(page.entries.map((e) => [e.seq, e.kind, e.refUpdates.length, e.pack !== null])).toEqual([
        [1, 'push', 1, true],
        [2, 'ref_update', 2, false],
        [3, 'ref_update', 1, false],
      ]);
      expect(page.entries[0]).toMatchObject({ pusher: 'alice', requestId: 'r1', repoId: head.repoId });
      const paged = await b.listLog(repo, 2, { limit: 1 });
      expect(paged.entries.map((e) => e.seq)).toEqual([2]);
      expect(paged.next).toBe(3);
      expect(await b.readEntry(repo, 2)).toEqual(page.entries[1]);
      expect(await b.readEntry(repo, 4)).toBeUndefined();

      expect([...(await b.refsAt(repo, 0))]).toEqual([]);
      expect([...(await b.refsAt(repo, 1))]).toEqual([['refs/heads/main', oid('c1')]]);
      expect([...(await a.refsAt(repo, 2))]).toEqual([
        ['refs/heads/main', oid('c2')],
        ['refs/tags/v1', oid('c1')],
      ]);
      // Packs are the head's at every seq: compaction keeps every object, so they hold every older state's objects.
      const headPacks = (await a.readHead(repo)).packs;
      expect((await a.stateAt(repo, 0)).packs).toEqual(headPacks);
      expect((await a.stateAt(repo, 1)).packs).toEqual(headPacks);
    });

    it('a pack already in the bucket is written again under a copy key, which the head names and reads from', async () => {
      const s = subject();
      const store = s.connect();
      const repos = new RepoStore({ store });
      const repo = newRepoName();
      await repos.createRepo(repo);
      const pack = smallPack();
      const push = (old: string) => repos.publish(repo, update([{ ref: 'refs/heads/main', old, new: oid('c1') }], { kind: 'push', pack }));
      await repos.publish(repo, update([{ ref: 'refs/heads/main', old: Z, new: oid('c0') }]));
      // A first try loses and leaves its pack in no head; the same push sent again must not adopt that object.
      expect((await push(Z)).outcome).toBe('rejected');
      expect(published(await push(oid('c0')))).toBe(2);
      const [named] = (await repos.readHead(repo)).packs;
      expect(named?.copy).toMatch(/^[0-9a-f]{16}$/);
      expect(Buffer.from((await repos.readPack(repo, named!))!).equals(pack.body as Uint8Array)).toBe(true);
      expect(Buffer.from((await repos.readPackIndex(repo, named!))!).equals(pack.idx as Uint8Array)).toBe(true);
      expect((await repos.readEntry(repo, 2))?.pack).toEqual({ sha256: named!.sha256, copy: named!.copy, size: 200, idxSize: 64 });
      const keys: string[] = [];
      for await (const item of listAll(store, `${repoPrefix(parseRepoPath(repo))}packs/`)) keys.push(item.key.slice(item.key.lastIndexOf('/') + 1));
      expect(keys.sort()).toEqual([`${named!.sha256}.${named!.copy}.idx`, `${named!.sha256}.${named!.copy}.pack`, `${named!.sha256}.idx`, `${named!.sha256}.pack`]);
    });

    it('rejects a stale old value: that ref alone, or the whole publish when atomic, writing nothing', async () => {
      const s = subject();
      const a = new RepoStore({ store: s.connect() });
      const raw = s.connect();
      const repo = newRepoName();
      await a.createRepo(repo);
      published(await a.publish(repo, update([{ ref: 'refs/heads/main', old: Z, new: oid('m1') }])));
      const stale = { ref: 'refs/heads/main', old: oid('elsewhere'), new: oid('m2') };
      const fresh = { ref: 'refs/heads/topic', old: Z, new: oid('t1') };

      const atomic = await a.publish(repo, update([stale, fresh], { atomic: true }));
      expect(atomic).toMatchObject({
        outcome: 'rejected',
        refs: [
          { ref: 'refs/heads/main', status: 'rejected', reason: 'stale old value' },
          { ref: 'refs/heads/topic', status: 'rejected', reason: 'atomic push failure' },
        ],
      });
      expect(atomic.head.seq).toBe(1);
      expect(await raw.head(logKey(parseRepoPath(repo), 2))).toBeUndefined();

      const loose = await a.publish(repo, update([stale, fresh], { atomic: false }));
      expect(published(loose)).toBe(2);
      expect(loose.refs).toEqual([
        { ref: 'refs/heads/main', status: 'rejected', reason: 'stale old value' },
        { ref: 'refs/heads/topic', status: 'ok' },
      ]);
      expect((await a.readEntry(repo, 2))?.refUpdates).toEqual([fresh]);

      const noop = await a.publish(repo, update([{ ref: 'refs/heads/main', old: oid('m1'), new: oid('m1') }]));
      expect(noop.outcome).toBe('unchanged');
      expect((await a.readHead(repo)).seq).toBe(2);
    });

    it('refuses to create a ref where another ref is its directory or under it, so every client can fetch them', async () => {
      const s = subject();
      const a = new RepoStore({ store: s.connect() });
      const repo = newRepoName();
      await a.createRepo(repo);
      published(
        await a.publish(
          repo,
          update([
            { ref: 'refs/heads/a', old: Z, new: oid('a') },
            { ref: 'refs/heads/x/y', old: Z, new: oid('xy') },
          ]),
        ),
      );
      const under = await a.publish(
        repo,
        update(
          [
            { ref: 'refs/heads/a/b', old: Z, new: oid('ab') },
            { ref: 'refs/heads/x', old: Z, new: oid('x') },
            { ref: 'refs/heads/ok', old: Z, new: oid('ok') },
          ],
          { atomic: false },
        ),
      );
      expect(published(under)).toBe(2);
      expect(under.refs).toEqual([
        { ref: 'refs/heads/a/b', status: 'rejected', reason: 'ref name conflict', conflictsWith: 'refs/heads/a' },
        { ref: 'refs/heads/x', status: 'rejected', reason: 'ref name conflict', conflictsWith: 'refs/heads/x/y' },
        { ref: 'refs/heads/ok', status: 'ok' },
      ]);
      // Two such creates in one publish: neither; atomic: nothing at all.
      const both = await a.publish(
        repo,
        update(
          [
            { ref: 'refs/heads/p', old: Z, new: oid('p') },
            { ref: 'refs/heads/p/q', old: Z, new: oid('pq') },
            { ref: 'refs/heads/r', old: Z, new: oid('r') },
          ],
          { atomic: true },
        ),
      );
      expect(both).toMatchObject({
        outcome: 'rejected',
        refs: [
          { ref: 'refs/heads/p', status: 'rejected', reason: 'ref name conflict', conflictsWith: 'refs/heads/p/q' },
          { ref: 'refs/heads/p/q', status: 'rejected', reason: 'ref name conflict', conflictsWith: 'refs/heads/p' },
          { ref: 'refs/heads/r', status: 'rejected', reason: 'atomic push failure' },
        ],
      });
      // Replacing a ref by a directory of refs in one publish is fine: the old name is gone.
      const moved = await a.publish(
        repo,
        update([
          { ref: 'refs/heads/a', old: oid('a'), new: Z },
          { ref: 'refs/heads/a/b', old: Z, new: oid('ab') },
        ]),
      );
      expect(moved.refs).toEqual([
        { ref: 'refs/heads/a', status: 'ok' },
        { ref: 'refs/heads/a/b', status: 'ok' },
      ]);
      expect([...(await a.readHead(repo)).refs.keys()].sort()).toEqual(['refs/heads/a/b', 'refs/heads/ok', 'refs/heads/x/y']);
    });

    it('the ref limit holds across instances: creates racing for the last place, or made on a stale head, never pass it', async () => {
      const s = subject();
      const instances = Array.from({ length: 3 }, () => new RepoStore({ store: s.connect(), maxRefs: 2 }));
      const [a, b] = instances as [RepoStore, RepoStore];
      const repo = newRepoName();
      await a.createRepo(repo);
      published(await a.publish(repo, update([{ ref: 'refs/heads/main', old: Z, new: oid('m') }])));
      const create = (name: string) => ({ ref: `refs/heads/${name}`, old: Z, new: oid(name) });

      // One place left, six writers through three instances: one lands, the others are told why.
      const racers = await Promise.all(Array.from({ length: 6 }, (_, i) => instances[i % 3]!.publish(repo, update([create(`racer-${i}`)]))));
      expect(racers.filter((r) => r.outcome === 'published')).toHaveLength(1);
      for (const r of racers.filter((r) => r.outcome !== 'published')) expect(r.refs).toEqual([expect.objectContaining({ status: 'rejected', reason: 'too many refs', maxRefs: 2 })]);
      const winner = [...(await b.readHead(repo, { fresh: true })).refs.keys()].find((ref) => ref.includes('racer')) as string;
      published(await b.publish(repo, update([{ ref: winner, old: oid(winner.slice('refs/heads/'.length)), new: Z }])));

      // `a` remembers a head with room for one; `b` takes it meanwhile. `a`'s create is checked against the state its
      // entry would follow, not the head it remembered.
      await a.readHead(repo, { fresh: true });
      published(await b.publish(repo, update([create('taken')])));
      const late = await a.publish(repo, update([create('late')], { headMaxAgeMs: 60_000 }));
      expect(late).toMatchObject({ outcome: 'rejected', refs: [{ ref: 'refs/heads/late', status: 'rejected', reason: 'too many refs', maxRefs: 2 }] });
      expect([...(await a.readHead(repo, { fresh: true })).refs.keys()]).not.toContain('refs/heads/late');

      // At the limit, deleting, moving and renaming (delete and create in one publish) go through.
      published(await a.publish(repo, update([{ ref: 'refs/heads/main', old: oid('m'), new: oid('m2') }])));
      published(
        await b.publish(
          repo,
          update([
            { ref: 'refs/heads/taken', old: oid('taken'), new: Z },
            { ref: 'refs/heads/renamed', old: Z, new: oid('taken') },
          ]),
        ),
      );
      published(await a.publish(repo, update([{ ref: 'refs/heads/renamed', old: oid('taken'), new: Z }])));
      expect([...(await b.readHead(repo, { fresh: true })).refs.keys()]).toEqual(['refs/heads/main']);
    });

    it('8 writers × 25 publishes through two instances: every acknowledged publish is there, seq gapless', async () => {
      const s = subject();
      const instances = [new RepoStore({ store: s.connect() }), new RepoStore({ store: s.connect() })];
      const repo = newRepoName();
      await instances[0]!.createRepo(repo);
      const acked: { writer: number; i: number; seq: number; requestId: string }[] = [];
      await Promise.all(
        Array.from({ length: 8 }, async (_, writer) => {
          const store = instances[writer % 2]!;
          const ref = `refs/heads/writer-${writer}`;
          let old = Z;
          for (let i = 0; i < 25; i++) {
            const next = oid(`${writer}/${i}`);
            const requestId = `w${writer}-${i}`;
            const result = await store.publish(repo, update([{ ref, old, new: next }], { requestId, kind: 'push', ...(i % 5 === 0 ? { pack: smallPack() } : {}) }));
            acked.push({ writer, i, seq: published(result), requestId });
            old = next;
          }
        }),
      );
      expect(acked).toHaveLength(200);
      expect(acked.map((a) => a.seq).sort((x, y) => x - y)).toEqual(Array.from({ length: 200 }, (_, i) => i + 1));

      const head = await instances[1]!.readHead(repo);
      expect(head.seq).toBe(200);
      expect(head.refs.size).toBe(8);
      for (let writer = 0; writer < 8; writer++) expect(head.refs.get(`refs/heads/writer-${writer}`)).toBe(oid(`${writer}/24`));
      expect(head.packs).toHaveLength(40);

      const entries = [];
      for (let from: number | undefined = 1; from !== undefined;) {
        const page = await instances[0]!.listLog(repo, from, { limit: 64 });
        entries.push(...page.entries);
        from = page.next;
      }
      expect(entries.map((e) => e.seq)).toEqual(Array.from({ length: 200 }, (_, i) => i + 1));
      const bySeq = new Map(entries.map((e) => [e.seq, e]));
      for (const a of acked) expect(bySeq.get(a.seq)?.requestId, `publish ${a.requestId}`).toBe(a.requestId);
      // Each writer's chain of old → new values is unbroken in log order.
      for (let writer = 0; writer < 8; writer++) {
        const chain = entries.flatMap((e) => e.refUpdates.filter((u) => u.ref === `refs/heads/writer-${writer}`));
        expect(chain.map((u) => u.new)).toEqual(Array.from({ length: 25 }, (_, i) => oid(`${writer}/${i}`)));
      }
      expect([...(await instances[1]!.refsAt(repo, 100))].length).toBeGreaterThan(0);
    }, 120_000);

    it('racing writers on the same ref with the same old value: exactly one wins, the others are stale', async () => {
      const s = subject();
      const instances = Array.from({ length: 4 }, () => new RepoStore({ store: s.connect() }));
      const repo = newRepoName();
      await instances[0]!.createRepo(repo);
      let old = Z;
      for (let round = 0; round < 5; round++) {
        const results = await Promise.all(
          Array.from({ length: 6 }, (_, racer) => instances[racer % 4]!.publish(repo, update([{ ref: 'refs/heads/main', old, new: oid(`${round}/${racer}`) }], { requestId: `r${round}-${racer}` }))),
        );
        const winners = results.flatMap((r, racer) => (r.outcome === 'published' ? [racer] : []));
        expect(winners, `round ${round}`).toHaveLength(1);
        for (const r of results.filter((r) => r.outcome !== 'published')) {
          expect(r).toMatchObject({ outcome: 'rejected', refs: [{ ref: 'refs/heads/main', status: 'rejected', reason: 'stale old value' }] });
          // A rejection is never ahead of what readers see: the winner's entry is visible when the loser is told.
          expect(r.head.seq).toBe(round + 1);
        }
        old = oid(`${round}/${winners[0]}`);
        expect((await instances[3]!.readHead(repo)).refs.get('refs/heads/main')).toBe(old);
      }
      expect((await instances[0]!.readHead(repo)).seq).toBe(5);
    });

    it('a crash after the log entry and before the CAS: the head stays, the next publish succeeds and rolls it forward', async () => {
      const s = subject();
      const repo = newRepoName();
      const path = parseRepoPath(repo);
      const healthy = new RepoStore({ store: s.connect() });
      await healthy.createRepo(repo);
      published(await healthy.publish(repo, update([{ ref: 'refs/heads/main', old: Z, new: oid('base') }])));

      const faulty = new FaultObjectStore(s.connect()).inject({ match: (key) => key === manifestKey(path), fault: 'crash-before' });
      const dying = new RepoStore({ store: faulty });
      const crashed = update([{ ref: 'refs/heads/feature', old: Z, new: oid('crashed') }], { kind: 'push', pack: smallPack(), requestId: 'crashed' });
      await expect(dying.publish(repo, crashed)).rejects.toMatchObject({ name: 'PublishIncompleteError', status: 503, cause: expect.any(SimulatedCrash) });

      const observer = new RepoStore({ store: s.connect() });
      const after = await observer.readHead(repo);
      expect(after.seq).toBe(1);
      expect(after.refs.has('refs/heads/feature')).toBe(false);
      expect(await observer.readEntry(repo, 2)).toBeUndefined();
      expect(await s.connect().head(logKey(path, 2))).toBeDefined(); // the orphan

      const next = await healthy.publish(repo, update([{ ref: 'refs/heads/main', old: oid('base'), new: oid('next') }], { requestId: 'next' }));
      expect(published(next)).toBe(3);
      const head = await observer.readHead(repo);
      expect(head.seq).toBe(3);
      expect(head.refs.get('refs/heads/main')).toBe(oid('next'));
      expect(head.refs.get('refs/heads/feature')).toBe(oid('crashed'));
      expect(head.packs).toHaveLength(1);
      expect((await observer.listLog(repo, 1)).entries.map((e) => e.requestId)).toEqual([expect.any(String), 'crashed', 'next']);
    });

    it('a publish that failed after its log entry was written is completed by its retry, answered ok', async () => {
      const s = subject();
      const repo = newRepoName();
      const healthy = new RepoStore({ store: s.connect() });
      await healthy.createRepo(repo);
      published(await healthy.publish(repo, update([{ ref: 'refs/heads/main', old: Z, new: oid('base') }])));
      const failing = new FaultObjectStore(s.connect()).inject({ match: (key) => key === manifestKey(parseRepoPath(repo)), fault: 'crash-before' });
      const push = update(
        [
          { ref: 'refs/heads/main', old: oid('base'), new: oid('pushed') },
          { ref: 'refs/heads/topic', old: Z, new: oid('t') },
        ],
        { kind: 'push', pack: smallPack() },
      );
      const failed = await new RepoStore({ store: failing }).publish(repo, push).then(
        () => undefined,
        (err: unknown) => err,
      );
      // Not "nothing happened": the client is told the write is recorded and that a retry completes it.
      expect(failed).toMatchObject({ name: 'PublishIncompleteError', status: 503, message: expect.stringMatching(/recorded but is not visible yet; retry/) });

      const retried = await healthy.publish(repo, push);
      expect(retried.outcome).toBe('unchanged');
      expect(retried.refs).toEqual([
        { ref: 'refs/heads/main', status: 'ok' },
        { ref: 'refs/heads/topic', status: 'ok' },
      ]);
      const head = await new RepoStore({ store: s.connect() }).readHead(repo, { fresh: true });
      expect(head.seq).toBe(2);
      expect(head.refs.get('refs/heads/main')).toBe(oid('pushed'));
      expect(head.refs.get('refs/heads/topic')).toBe(oid('t'));
    });

    it('a crash after the pack upload and before the log entry leaves nothing visible', async () => {
      const s = subject();
      const repo = newRepoName();
      const path = parseRepoPath(repo);
      const healthy = new RepoStore({ store: s.connect() });
      await healthy.createRepo(repo);
      const faulty = new FaultObjectStore(s.connect()).inject({ match: (key) => key.startsWith(`${repoPrefix(path)}log/`), fault: 'crash-before' });
      await expect(new RepoStore({ store: faulty }).publish(repo, update([{ ref: 'refs/heads/main', old: Z, new: oid('lost') }], { pack: smallPack() }))).rejects.toBeInstanceOf(SimulatedCrash);
      expect((await healthy.readHead(repo)).seq).toBe(0);
      expect(published(await healthy.publish(repo, update([{ ref: 'refs/heads/main', old: Z, new: oid('kept') }])))).toBe(1);
      expect((await healthy.readHead(repo)).packs).toEqual([]);
    });

    it('a lost answer to the log write or to the CAS resolves to the publish it was', async () => {
      const s = subject();
      const repo = newRepoName();
      const path = parseRepoPath(repo);
      const faulty = new FaultObjectStore(s.connect())
        .inject({ match: (key) => key === logKey(path, 1), fault: 'lost-response' })
        .inject({ match: (key) => key === manifestKey(path), fault: 'lost-response' });
      const store = new RepoStore({ store: faulty });
      // createRepo's If-None-Match write is also a manifest PUT: do it through a healthy client.
      await new RepoStore({ store: s.connect() }).createRepo(repo);
      const result = await store.publish(repo, update([{ ref: 'refs/heads/main', old: Z, new: oid('one') }]));
      expect(published(result)).toBe(1);
      expect(result.head.seq).toBe(1);
      const head = await new RepoStore({ store: s.connect() }).readHead(repo);
      expect(head.seq).toBe(1);
      expect(head.refs.get('refs/heads/main')).toBe(oid('one'));
      expect(await s.connect().head(logKey(path, 2))).toBeUndefined();
    });

    it('refuses to create a repository again while its deletion sweeps, so the sweep never takes the new one', async () => {
      const s = subject();
      const a = new RepoStore({ store: s.connect() });
      const repo = newRepoName();
      await a.createRepo(repo);
      published(await a.publish(repo, update([{ ref: 'refs/heads/main', old: Z, new: oid('one') }], { pack: smallPack() })));
      // A deleter that stalls in its sweep (a large repository, a slow store).
      const inner = s.connect();
      let release: () => void = () => undefined;
      const stall = new Promise<void>((resolve) => (release = resolve));
      let sweeping: () => void = () => undefined;
      const inSweep = new Promise<void>((resolve) => (sweeping = resolve));
      const slow: ObjectStore = {
        get: (key, options) => inner.get(key, options),
        getStream: (key) => inner.getStream(key),
        head: (key) => inner.head(key),
        put: (key, body, options) => inner.put(key, body, options),
        list: (prefix, options) => inner.list(prefix, options),
        listPrefixes: (prefix, options) => inner.listPrefixes(prefix, options),
        delete: async (key) => {
          if (key.includes('/packs/') || key.includes('/log/')) {
            sweeping();
            await stall;
          }
          return inner.delete(key);
        },
      };
      const deleting = new RepoStore({ store: slow }).deleteRepo(repo);
      await inSweep;
      await expect(a.createRepo(repo)).rejects.toMatchObject({ name: 'RepoBusyError', status: 409 });
      release();
      await deleting;
      await a.createRepo(repo);
      published(await a.publish(repo, update([{ ref: 'refs/heads/main', old: Z, new: oid('two') }], { pack: smallPack() })));
      const head = await new RepoStore({ store: s.connect() }).readHead(repo, { fresh: true });
      expect(head.refs.get('refs/heads/main')).toBe(oid('two'));
      expect(head.packs).toHaveLength(1);
    });

    it('lets a deletion marker its deleter left behind (it died) stop refusing creates after ten minutes', async () => {
      const s = subject();
      const raw = s.connect();
      const repo = newRepoName();
      const marker = (at: Date) => raw.put(deletingKey(parseRepoPath(repo)), JSON.stringify({ at: at.toISOString() }));
      const now = new Date();
      await marker(new Date(now.getTime() - 60_000));
      await expect(new RepoStore({ store: s.connect() }).createRepo(repo)).rejects.toMatchObject({ name: 'RepoBusyError' });
      await marker(new Date(now.getTime() - 11 * 60_000));
      await expect(new RepoStore({ store: s.connect() }).createRepo(repo)).resolves.toMatchObject({ seq: 0 });
    });

    it('deleteRepo removes every object, and a new incarnation replaces what a torn delete left', async () => {
      const s = subject();
      const raw = s.connect();
      const a = new RepoStore({ store: s.connect() });
      const repo = newRepoName();
      const path = parseRepoPath(repo);
      const first = await a.createRepo(repo);
      published(await a.publish(repo, update([{ ref: 'refs/heads/main', old: Z, new: oid('old') }], { pack: smallPack() })));
      await a.deleteRepo(repo);
      const left = [];
      for await (const item of listAll(raw, repoPrefix(path))) left.push(item.key);
      expect(left).toEqual([]);
      await expect(a.readHead(repo)).rejects.toBeInstanceOf(RepoNotFoundError);
      await a.deleteRepo(repo); // idempotent

      // A delete that died after the manifest: the old incarnation's log entry 1 is still there.
      const second = await a.createRepo(repo);
      expect(second.repoId).not.toBe(first.repoId);
      const leftover = {
        repoId: first.repoId,
        seq: 1,
        kind: 'push' as const,
        at: '',
        pusher: 'x',
        requestId: 'x',
        nonce: 'x',
        refUpdates: [{ ref: 'refs/heads/ghost', old: Z, new: oid('ghost') }],
        pack: null,
      };
      await raw.put(logKey(path, 1), encodeLogEntry(leftover));
      expect(published(await a.publish(repo, update([{ ref: 'refs/heads/main', old: Z, new: oid('new') }])))).toBe(1);
      const head = await new RepoStore({ store: s.connect() }).readHead(repo);
      expect([...head.refs]).toEqual([['refs/heads/main', oid('new')]]);
      expect((await a.readEntry(repo, 1))?.repoId).toBe(second.repoId);
    });

    it('stays within its request budget: ≤ 5 per small push, 1 per warm read', async () => {
      const s = subject();
      const counted = new CountingObjectStore(s.connect());
      const store = new RepoStore({ store: counted });
      const other = new RepoStore({ store: s.connect() });
      const repo = newRepoName();
      await store.createRepo(repo);

      counted.reset();
      published(await store.publish(repo, update([{ ref: 'refs/heads/main', old: Z, new: oid('p1') }], { kind: 'push', pack: smallPack() })));
      expect(counted.calls.map((c) => c.op)).toEqual(['put', 'put', 'get', 'put', 'put']); // pack ∥ idx ∥ head, log, CAS
      expect(counted.total).toBeLessThanOrEqual(5);

      counted.reset();
      published(await store.publish(repo, update([{ ref: 'refs/heads/main', old: oid('p1'), new: oid('p2') }])));
      expect(counted.total).toBe(3); // head, log, CAS

      counted.reset();
      await store.readHead(repo);
      expect(counted.total).toBe(1); // 304

      published(await other.publish(repo, update([{ ref: 'refs/heads/main', old: oid('p2'), new: oid('p3') }])));
      counted.reset();
      expect((await store.readHead(repo)).refs.get('refs/heads/main')).toBe(oid('p3'));
      expect(counted.total).toBe(1); // 200 with the new manifest, refs inline

      const cold = new CountingObjectStore(s.connect());
      await new RepoStore({ store: cold }).readHead(repo);
      expect(cold.total).toBe(1);
    });

    it("a writer that still remembers a deleted incarnation never overwrites the new incarnation's log", async () => {
      const s = subject();
      const stale = new RepoStore({ store: s.connect() });
      const other = new RepoStore({ store: s.connect() });
      const repo = newRepoName();
      await stale.createRepo(repo);
      published(await stale.publish(repo, update([{ ref: 'refs/heads/main', old: Z, new: oid('x1') }])));
      // Deleted and created again elsewhere, with history up to seq 3, while `stale` still remembers seq 1.
      await other.deleteRepo(repo);
      await other.createRepo(repo);
      for (const [i, ref] of ['a', 'b', 'c'].entries()) published(await other.publish(repo, update([{ ref: `refs/heads/${ref}`, old: Z, new: oid(`y${i}`) }])));
      await expect(stale.publish(repo, update([{ ref: 'refs/heads/main', old: oid('x1'), new: oid('x2') }], { headMaxAgeMs: 60_000 }))).rejects.toThrow(RepoNotFoundError);
      const fresh = new RepoStore({ store: s.connect() });
      expect((await fresh.readEntry(repo, 2))?.refUpdates).toEqual([{ ref: 'refs/heads/b', old: Z, new: oid('y1') }]);
      expect((await fresh.stateAt(repo, 1)).refs.get('refs/heads/a')).toBe(oid('y0'));
    });

    it('a push that just read the head skips re-reading it; a stale remembered head never loses or wrongly rejects', async () => {
      const s = subject();
      const counted = new CountingObjectStore(s.connect());
      const store = new RepoStore({ store: counted });
      const other = new RepoStore({ store: s.connect() });
      const repo = newRepoName();
      await store.createRepo(repo);
      published(await store.publish(repo, update([{ ref: 'refs/heads/main', old: Z, new: oid('h1') }])));

      // Warm: the request read the head a moment ago, so the publish is pack ∥ idx, log, CAS.
      await store.readHead(repo);
      counted.reset();
      const warm = { kind: 'push' as const, pack: smallPack(), headMaxAgeMs: 10_000 };
      published(await store.publish(repo, update([{ ref: 'refs/heads/main', old: oid('h1'), new: oid('h2') }], warm)));
      expect(counted.calls.map((c) => c.op)).toEqual(['put', 'put', 'put', 'put']);

      // Another instance moves main and adds a branch behind our back: our remembered head is stale.
      published(await other.publish(repo, update([{ ref: 'refs/heads/main', old: oid('h2'), new: oid('h3') }])));
      published(await other.publish(repo, update([{ ref: 'refs/heads/b', old: Z, new: oid('b1') }])));
      // An update whose old value is current in the store but not in our memory is not rejected.
      const current = await store.publish(repo, update([{ ref: 'refs/heads/main', old: oid('h3'), new: oid('h4') }], { headMaxAgeMs: 10_000 }));
      expect(published(current)).toBe(5);
      // One made against our stale view is rejected, and only after a fresh read confirmed it.
      const stale = await store.publish(repo, update([{ ref: 'refs/heads/b', old: Z, new: oid('b2') }], { headMaxAgeMs: 10_000 }));
      expect(stale).toMatchObject({ outcome: 'rejected', refs: [{ ref: 'refs/heads/b', status: 'rejected', reason: 'stale old value' }] });
      const head = await other.readHead(repo);
      expect([head.seq, head.refs.get('refs/heads/main'), head.refs.get('refs/heads/b')]).toEqual([5, oid('h4'), oid('b1')]);
    });
  });
}
