// JSON API writes against stock git pushes and crashes: an API commit through one instance and a push through the
// other race on one branch and neither acknowledged write is lost; a cw-git killed with SIGKILL in the middle of an
// API commit leaves the branch before or after it, never between; the request id reaches the log entry.
import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, describe, expect, it } from 'vitest';
import { S3ObjectStore } from '../src/object-store/s3-object-store.ts';
import { RepoStore } from '../src/repo-store/index.ts';
import { spawnGitService } from './harness/git-service.ts';
import { useGitTestbed } from './harness/git-testbed.ts';

const bed = useGitTestbed();
const children: { stop(): Promise<void> }[] = [];
afterAll(async () => {
  await Promise.all(children.map((c) => c.stop()));
});

const who = { name: 'Ada', email: 'ada@example.com' };
const upsert = (path: string, content: Buffer | string) => ({ op: 'upsert', path, content: Buffer.from(content).toString('base64'), mode: '100644' });

interface Answer {
  readonly status: number;
  readonly body: Record<string, unknown>;
  readonly requestId: string | null;
}

async function commit(service: { url: string }, repo: string, body: Record<string, unknown>, headers: Record<string, string> = {}): Promise<Answer> {
  const response = await fetch(`${service.url}/${repo}/api/commits`, {
    method: 'POST',
    headers: { authorization: `Bearer ${bed.token}`, 'content-type': 'application/json', ...headers },
    body: JSON.stringify({ branch: 'main', committer: who, ...body }),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown>, requestId: response.headers.get('x-request-id') };
}

/** A repository whose `main` has one pushed commit, and the work tree that pushed it. */
async function seeded(label: string): Promise<{ repo: string; work: string; first: string }> {
  const repo = await bed.createRepo();
  const work = await bed.git.workdir(`${label}-${randomBytes(3).toString('hex')}`);
  await bed.git.run(['init', '-q', '-b', 'main'], { cwd: work });
  const first = await bed.git.commit(work, 'first', { 'README.md': '# hello\n' });
  await bed.git.run(['push', '-q', bed.remote(bed.a, repo), 'main'], { cwd: work });
  return { repo, work, first };
}

function storeOf(): RepoStore {
  return new RepoStore({ store: new S3ObjectStore({ config: bed.setup.s3, bucket: bed.setup.bucket }) });
}

/** The log's entries, checked gapless from seq 1 to the head's. */
async function gaplessLog(repo: string) {
  const store = storeOf();
  const head = await store.readHead(repo);
  const page = await store.listLog(repo, 1, { limit: 1000 });
  expect(page.entries.map((e) => e.seq)).toEqual(Array.from({ length: head.seq }, (_, i) => i + 1));
  return page.entries;
}

async function freshClone(repo: string, label: string): Promise<string> {
  const dir = await bed.git.workdir(`${label}-clone-${randomBytes(3).toString('hex')}`);
  await bed.git.run(['clone', '-q', bed.remote(bed.a, repo), dir]);
  await bed.git.run(['fsck', '--strict', '--no-dangling'], { cwd: dir });
  return dir;
}

describe('JSON API writes: races and crashes', () => {
  it('API commits through a and pushes through b on one branch: one wins each round, no acknowledged write is lost', { timeout: 120_000 }, async () => {
    const { repo, work, first } = await seeded('race');
    let apiSeen = first;
    const acknowledged: string[] = [];
    const apiWins: string[] = [];
    for (let round = 0; round < 10; round++) {
      const viaApi = commit(bed.a, repo, { message: `api ${round}\n`, expected_head_oid: apiSeen, changes: [upsert(`api-${round}.txt`, `${round}\n`)] });
      const viaPush = (async () => {
        const oid = await bed.git.commit(work, `push ${round}`, { [`push-${round}.txt`]: `${round}\n` });
        const result = await bed.git.run(['push', '-q', bed.remote(bed.b, repo), 'main'], { cwd: work, okCodes: [0, 1] });
        return { oid, ok: result.code === 0 };
      })();
      const [api, push] = await Promise.all([viaApi, viaPush]);

      // Both built on the same head: exactly one of them moved the branch.
      expect([api.status === 201, push.ok].filter(Boolean), `round ${round}: api ${api.status}, push ${push.ok ? 'ok' : 'rejected'}`).toHaveLength(1);
      if (api.status === 201) {
        apiSeen = String(api.body.oid);
        acknowledged.push(apiSeen);
        apiWins.push(apiSeen);
      } else {
        expect(api.body).toMatchObject({ error: 'ref_mismatch', current_oid: push.oid });
        apiSeen = push.oid;
        acknowledged.push(push.oid);
      }
      if (!push.ok) {
        // The pusher does what a user does: fetch and carry on from what is there now.
        await bed.git.run(['fetch', '-q', bed.remote(bed.b, repo), 'main'], { cwd: work });
        await bed.git.run(['reset', '-q', '--hard', 'FETCH_HEAD'], { cwd: work });
      }
    }

    const dir = await freshClone(repo, 'race');
    const history = (await bed.git.out(['rev-list', '--first-parent', 'HEAD'], dir)).split('\n').reverse();
    expect(history).toEqual([first, ...acknowledged]);
    const entries = await gaplessLog(repo);
    // The seed push, then one entry per acknowledged write; a loser wrote none.
    expect(entries).toHaveLength(1 + acknowledged.length);
    expect(entries.filter((e) => e.kind === 'ref_update').map((e) => e.refUpdates[0]?.new)).toEqual(apiWins);
  });

  it('SIGKILL in the middle of an API commit leaves the branch before or after it; fsck is clean and the next commit works', { timeout: 240_000 }, async () => {
    const { repo, first } = await seeded('kill');
    // Incompressible content, so the commit takes long enough for a kill to land inside it.
    const big = () => randomBytes(6 * 1024 * 1024);

    const timing = await spawnGitService(bed.setup);
    children.push(timing.service);
    const started = performance.now();
    const timed = await commit(timing, repo, { message: 'timing\n', changes: [upsert('big.bin', big())] });
    const commitMs = performance.now() - started;
    expect(timed.status).toBe(201);
    await timing.service.stop();

    const outcomes: string[] = [];
    // From "while the body streams in" through "around the publish" to "after the answer".
    for (const fraction of [0.2, 0.5, 0.8, 0.95, 1.0, 1.05, 1.2]) {
      const killAfterMs = Math.round(commitMs * fraction);
      const before = (await storeOf().readHead(repo)).refs.get('refs/heads/main')!;
      const label = `kill at ${killAfterMs}`;
      const victim = await spawnGitService(bed.setup);
      children.push(victim.service);
      const answer = commit(victim, repo, { message: `${label}\n`, expected_head_oid: before, changes: [upsert('big.bin', big())] }).catch(() => undefined);
      // Time is the subject: the kill lands at a fraction of a measured commit, to sample every phase of it.
      await sleep(killAfterMs);
      victim.service.child.kill('SIGKILL');
      const result = await answer;

      // A write killed between its log entry and its manifest swap is decided but not yet visible: the next
      // publish on any instance rolls it forward. Make one (a tag on the old tip), then look.
      const probe = await fetch(`${bed.a.url}/${repo}/api/refs/tags/probe-${killAfterMs}`, {
        method: 'PUT',
        headers: { authorization: `Bearer ${bed.token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ target: before }),
      });
      expect(probe.status).toBe(201);
      const after = (await storeOf().readHead(repo)).refs.get('refs/heads/main')!;
      const moved = after !== before;
      if (moved) {
        // After: exactly that commit, on the old head.
        const dir = await freshClone(repo, 'kill-after');
        expect(await bed.git.out(['log', '-1', '--format=%s|%P', 'HEAD'], dir)).toBe(`${label}|${before}`);
      }
      if (result?.status === 201) expect(after, 'an acknowledged commit is never lost').toBe(result.body.oid);
      outcomes.push(`${killAfterMs}ms: ${result === undefined ? 'no answer' : String(result.status)}, ${moved ? 'after' : 'before'}`);
    }

    await freshClone(repo, 'kill');
    const head = (await storeOf().readHead(repo)).refs.get('refs/heads/main')!;
    const next = await commit(bed.a, repo, { message: 'after the crashes\n', expected_head_oid: head, changes: [upsert('after.txt', 'ok\n')] });
    expect(next.status).toBe(201);
    const dir = await freshClone(repo, 'kill-final');
    expect(await bed.git.out(['rev-parse', 'HEAD^'], dir)).toBe(head);
    expect(await bed.git.out(['rev-list', '--count', 'HEAD'], dir)).toBe(String(Number(await bed.git.out(['rev-list', '--count', head], dir)) + 1));
    expect(first).toBe(await bed.git.out(['rev-list', '--max-parents=0', 'HEAD'], dir));
    await gaplessLog(repo);
    console.log(`API commit ${Math.round(commitMs)} ms; kill outcomes: ${outcomes.join('; ')}`);
  });

  it('records the x-request-id of a write in its log entry', async () => {
    const { repo } = await seeded('reqid');
    const id = `write-${randomBytes(6).toString('hex')}`;
    const answer = await commit(bed.b, repo, { message: 'traced\n', changes: [upsert('traced.txt', 'x\n')] }, { 'x-request-id': id });
    expect(answer.status).toBe(201);
    expect(answer.requestId).toBe(id);
    const entry = (await gaplessLog(repo)).find((e) => e.seq === answer.body.seq);
    expect(entry).toMatchObject({ kind: 'ref_update', requestId: id, pusher: 'ada' });
  });
});
