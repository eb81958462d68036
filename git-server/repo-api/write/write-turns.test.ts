// The JSON API writes' turns (review-177 F4, L1): a caller's writes run a few at once and the next waits its turn, then
// 429 with Retry-After, while another owner's run; a write whose client left publishes nothing and gives its turn back;
// a write past its deadline (api.write_deadline) is cut before it publishes, and one already publishing is not.
import { once } from 'node:events';
import { connect } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { MemoryObjectStore } from '../../../src/object-store/memory-object-store.ts';
import { StoreUnavailableError, type GetOptions, type ObjectStore, type PutBody, type PutOptions } from '../../../src/object-store/object-store.ts';
import { ForwardingObjectStore } from '../../../src/object-store/testing/forwarding-object-store.ts';
import { GateStore } from '../../../src/object-store/testing/gate-object-store.ts';
import { manifestKey, parseRepoPath, RepoStore } from '../../../src/repo-store/index.ts';
import { mintToken } from '../../auth/index.ts';
import { bucketGitServer, listenForGit } from '../../testing/bucket-git-server.ts';

const SECRET = 'write-turns-secret-of-32-bytes-at-least';
const token = (sub: string) => mintToken({ sub, scopes: ['read', 'write'] }, SECRET);
const committer = { name: 'Ada', email: 'ada@example.com', when: '2030-01-02T03:04:05Z' };

let app: FastifyInstance | undefined;
afterEach(async () => {
  await app?.close();
  app = undefined;
});

function commitBody(branch: string, file: string, extra: Record<string, unknown> = {}) {
  return { branch, message: file, committer, changes: [{ op: 'upsert', path: file, content: Buffer.from(`${file}\n`).toString('base64'), mode: '100644' }], ...extra };
}

function post(server: FastifyInstance, sub: string, url: string, payload: unknown) {
  return server.inject({ method: 'POST', url, headers: { authorization: `Bearer ${token(sub)}` }, payload: payload as Record<string, unknown> });
}

/** Holds the next read of `repo`'s manifest once armed, until `release()`; `reached` when it is there. */
class HeldManifest extends ForwardingObjectStore {
  #key = '';
  #open: Promise<void> = Promise.resolve();
  release: () => void = () => {};
  reached: Promise<void> = Promise.resolve();
  arm(repo: string): void {
    this.#key = manifestKey(parseRepoPath(repo));
    this.#open = new Promise((resolve) => (this.release = resolve));
    this.reached = new Promise((resolve) => (this.#reach = resolve));
  }
  #reach: () => void = () => {};
  override async get(key: string, options?: GetOptions) {
    if (key === this.#key) {
      this.#key = '';
      this.#reach();
      await this.#open;
    }
    return super.get(key, options);
  }
}

async function created(objects: ObjectStore, ...names: string[]): Promise<void> {
  const repos = new RepoStore({ store: objects });
  for (const name of names) await repos.createRepo(name);
}

describe('JSON API writes take a turn', () => {
  it("runs a caller's writes one at a time here, the next waiting its turn then 429 with Retry-After; another owner's write runs meanwhile", async () => {
    const bucket = new MemoryObjectStore();
    await created(bucket, 'acme/site', 'blog/site');
    // The first log entry write waits for the test: the write holding it holds its turn.
    const gate = new GateStore(bucket, (key) => key.includes('/log/'));
    app = await bucketGitServer(gate, SECRET, { writes: { perCaller: 1, perOwner: 2, total: 4, waitMs: 300 } });
    const first = post(app, 'ada', '/acme/site/api/commits', commitBody('main', 'one.txt'));
    await gate.reached;
    const second = await post(app, 'ada', '/acme/site/api/merges', { base: 'main', head: 'main', strategy: 'merge', expected_base_oid: '0'.repeat(40), committer });
    expect(second.statusCode, second.body).toBe(429);
    expect(second.json()).toMatchObject({ error: 'owner_writes_limit', retryable: true });
    expect(second.headers['retry-after']).toBe('10');
    // A commit its request alone refuses is refused at once, not after waiting for the turn it would not use.
    const bad = await post(app, 'ada', '/acme/site/api/commits', commitBody('main', '../escape.txt'));
    expect([bad.statusCode, bad.json().error]).toEqual([400, 'invalid_path']);
    // So is a revision that cannot be one, wherever a write takes one (review-181 L5).
    const regex = 'main^{/x}';
    for (const [method, url, payload] of [
      ['POST', '/acme/site/api/commits', commitBody('other', 'x.txt', { base: regex })],
      ['POST', '/acme/site/api/merges', { base: 'main', head: regex, strategy: 'merge', expected_base_oid: '0'.repeat(40), committer }],
      ['PUT', '/acme/site/api/refs/heads/x', { target: regex }],
      ['POST', '/acme/site/api/tags', { name: 'v9', target: regex, message: 'm', tagger: committer }],
    ] as const) {
      const answer = await app.inject({ method, url, headers: { authorization: `Bearer ${token('ada')}` }, payload: payload as Record<string, unknown> });
      expect([answer.statusCode, answer.json().error, answer.json().message], `${method} ${url}`).toEqual([400, 'invalid_request', expect.stringContaining('is not a revision')]);
    }
    // Another owner's write does not wait behind ada's.
    expect((await post(app, 'bob', '/blog/site/api/commits', commitBody('main', 'b.txt'))).statusCode).toBe(201);
    gate.release();
    expect((await first).statusCode).toBe(201);
    // Its turn was given back.
    expect((await post(app, 'ada', '/acme/site/api/commits', commitBody('main', 'two.txt'))).statusCode).toBe(201);
  });

  it('stops a merge whose client left: nothing is published and the caller has its turn again (L1)', async () => {
    const held = new HeldManifest(new MemoryObjectStore());
    await created(held, 'acme/site');
    app = await bucketGitServer(held, SECRET, { writes: { perCaller: 1, perOwner: 1, total: 1, waitMs: 10_000 } });
    const commit = async (branch: string, file: string, extra: Record<string, unknown> = {}) => {
      const answer = await post(app as FastifyInstance, 'ada', '/acme/site/api/commits', commitBody(branch, file, extra));
      expect(answer.statusCode, answer.body).toBe(201);
      return answer.json<{ oid: string }>().oid;
    };
    await commit('main', 'one.txt');
    await commit('feature', 'two.txt', { base: 'main' });
    const base = await commit('main', 'three.txt');
    const url = await listenForGit(app, token('ada'));
    const merge = (message: string, signal?: AbortSignal) =>
      fetch(`${url.replace(/git:[^@]+@/, '')}/acme/site/api/merges`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token('ada')}`, 'content-type': 'application/json' },
        body: JSON.stringify({ base: 'main', head: 'feature', strategy: 'merge', expected_base_oid: base, committer, message }),
        ...(signal ? { signal } : {}),
      });

    // The merge has its turn and reads the repository's head; its client leaves meanwhile.
    held.arm('acme/site');
    const client = new AbortController();
    const left = merge('left', client.signal).catch((error: unknown) => error);
    await held.reached;
    client.abort();
    await left;
    await new Promise((resolve) => setTimeout(resolve, 100));
    held.release();

    // The next merge of the same caller has the turn (one at a time), and finds main where it was: the first published nothing.
    const next = await merge('stayed');
    expect(next.status, await next.clone().text()).toBe(201);
    expect(await next.json()).toMatchObject({ ref: 'refs/heads/main', seq: 4 });
  });
  it('takes a client that left while its write waited for a turn for what it is: an info line, not a server error (review-181 L4)', async () => {
    const bucket = new MemoryObjectStore();
    await created(bucket, 'acme/site');
    const gate = new GateStore(bucket, (key) => key.includes('/log/'));
    const lines: string[] = [];
    app = await bucketGitServer(
      gate,
      SECRET,
      { writes: { perCaller: 1, perOwner: 2, total: 4, waitMs: 10_000 } },
      { logger: { level: 'info', stream: { write: (line: string) => void lines.push(line) } } },
    );
    const first = post(app, 'ada', '/acme/site/api/commits', commitBody('main', 'one.txt'));
    await gate.reached;
    const port = Number(new URL(await app.listen({ port: 0, host: '127.0.0.1' })).port);
    const gone = connect(port, '127.0.0.1');
    await once(gone, 'connect');
    const body = JSON.stringify(commitBody('main', 'two.txt'));
    gone.write(
      `POST /acme/site/api/commits HTTP/1.1\r\nhost: git.test\r\nauthorization: Bearer ${token('ada')}\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
    );
    await expect.poll(() => lines.filter((l) => l.includes('incoming request')).length).toBeGreaterThanOrEqual(2);
    gone.destroy();
    await expect.poll(() => lines.some((l) => l.includes('the client went away'))).toBe(true);
    gate.release();
    expect((await first).statusCode).toBe(201);
    expect(lines.filter((l) => (JSON.parse(l) as { level: number }).level >= 50)).toEqual([]);
  });
});

/** Holds the first put of a log entry (the publish's compare-and-swap) until `release()`, then fails it as a store outage. */
class FailingLogPut extends ForwardingObjectStore {
  #armed = false;
  release: () => void = () => {};
  reached: Promise<void> = Promise.resolve();
  #reach: () => void = () => {};
  #open: Promise<void> = Promise.resolve();
  arm(): void {
    this.#armed = true;
    this.#open = new Promise((resolve) => (this.release = resolve));
    this.reached = new Promise((resolve) => (this.#reach = resolve));
  }
  override async put(key: string, body: PutBody, options?: PutOptions) {
    if (!this.#armed || !key.includes('/log/')) return super.put(key, body, options);
    this.#armed = false;
    this.#reach();
    await this.#open;
    throw new StoreUnavailableError('put', new Error('the bucket went away'));
  }
}

describe('a JSON API write has a deadline of its own (api.write_deadline)', () => {
  // The deadline passing is the event these tests wait for: a hold past it, from a point the write reaches quickly.
  const pastDeadline = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms + 300));

  it('cuts a write whose git work runs past it before it publishes: 503 write_deadline with Retry-After, nothing written, its turn given back', async () => {
    const held = new HeldManifest(new MemoryObjectStore());
    await created(held, 'acme/site');
    // The first commit under the default deadline: on a loaded machine its git work alone can take a second.
    app = await bucketGitServer(held, SECRET);
    const first = await post(app, 'ada', '/acme/site/api/commits', commitBody('main', 'one.txt'));
    expect(first.statusCode, first.body).toBe(201);
    const base = first.json<{ oid: string }>().oid;
    await app.close();
    app = await bucketGitServer(held, SECRET, { writes: { perCaller: 1, perOwner: 1, total: 1, waitMs: 10_000 }, writeDeadlineMs: 1000 });

    // The commit has its turn and reads the repository's head, before any git work; the head arrives after its deadline.
    held.arm('acme/site');
    const cut = post(app, 'ada', '/acme/site/api/commits', commitBody('main', 'two.txt', { expected_head_oid: base }));
    await held.reached;
    await pastDeadline(1000);
    held.release();
    const answer = await cut;
    expect(answer.statusCode, answer.body).toBe(503);
    expect(answer.json()).toMatchObject({ error: 'write_deadline', retryable: true, message: expect.stringContaining('nothing was written') });
    expect(answer.headers['retry-after']).toBe('30');

    // Nothing was published (main is where it was), and the caller's one turn is free again.
    const next = await post(app, 'ada', '/acme/site/api/commits', commitBody('main', 'three.txt', { expected_head_oid: base }));
    expect(next.statusCode, next.body).toBe(201);
    expect(next.json()).toMatchObject({ seq: 2 });
  });

  it('lets a write that began publishing run to its answer: a publish that fails past the deadline is not said to have written nothing', async () => {
    const store = new FailingLogPut(new MemoryObjectStore());
    await created(store, 'acme/site');
    // Long enough for a one-file commit's git work on a loaded machine: the deadline is to pass during the publish.
    const deadlineMs = 4000;
    app = await bucketGitServer(store, SECRET, { writeDeadlineMs: deadlineMs });
    store.arm();
    const write = post(app, 'ada', '/acme/site/api/commits', commitBody('main', 'one.txt'));
    await Promise.race([
      store.reached,
      write.then((early) => {
        throw new Error(`answered before it published (its git work ran past the deadline?): ${early.statusCode} ${early.body}`);
      }),
    ]);
    await pastDeadline(deadlineMs);
    store.release();
    const answer = await write;
    // The store's own answer: whether the entry landed is not known, so the write is not said to have written nothing.
    expect([answer.statusCode, answer.json().error], answer.body).toEqual([503, 'store_unavailable']);
  });
});
