import { EventEmitter } from 'node:events';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { describe, expect, it } from 'vitest';
import type { RepoApiDependencies } from './dependencies.ts';
import { readRepoInTurn, ReadTurns } from './repo-read.ts';

/** A request of `caller` to `owner/site`, whose client can go away (`raw` emits close). */
function request(owner: string, caller: string): FastifyRequest & { raw: EventEmitter } {
  return { params: { owner, repo: 'site' }, gitPrincipal: { name: caller }, raw: new EventEmitter() } as unknown as FastifyRequest & { raw: EventEmitter };
}

/** The reply of a request whose client is still there. */
const reply = () => ({ raw: Object.assign(new EventEmitter(), { writableFinished: false }) }) as unknown as FastifyReply;

const deps = {
  cache: { hold: () => () => {}, sync: async (name: string) => ({ dir: `/cache/${name}`, head: undefined }) },
} as unknown as RepoApiDependencies;

describe('readRepoInTurn', () => {
  it("runs a caller's costly reads a few at once, the next waiting its turn, then refused; another owner's run meanwhile (found in review: 12 compares held both cores)", async () => {
    const turns = new ReadTurns({ perCaller: 2, perOwner: 2, total: 3, waitMs: 100 });
    const finish: Array<() => void> = [];
    const slow = () => readRepoInTurn(turns.history, deps, request('mallory', 'mallory'), reply(), () => new Promise<void>((resolve) => finish.push(resolve)));
    const running = [slow(), slow()];
    await expect.poll(() => finish.length).toBe(2);
    // The third of the caller waits, and is refused once the wait is up (429: its own share).
    await expect(slow()).rejects.toMatchObject({ status: 429, code: 'owner_reads_limit' });
    // Another owner's read runs at once.
    await expect(readRepoInTurn(turns.history, deps, request('victim', 'victim'), reply(), async ({ dir }) => dir)).resolves.toBe('/cache/victim/site');
    // Once one ends, the caller has its turn again.
    finish.shift()!();
    await running[0];
    const again = slow();
    await expect.poll(() => finish.length).toBe(2);
    for (const done of finish) done();
    await Promise.all([running[1], again]);
    expect(turns.history.counts).toEqual({ running: 0, waiting: 0 });
  });

  it('gives its turn back when the read fails, and file reads have turns of their own', async () => {
    const turns = new ReadTurns({ perCaller: 1, perOwner: 1, total: 1, waitMs: 50 });
    await expect(readRepoInTurn(turns.history, deps, request('acme', 'a'), reply(), () => Promise.reject(new Error('bad revision')))).rejects.toThrow('bad revision');
    expect(turns.history.counts.running).toBe(0);
    let release: () => void = () => {};
    const held = readRepoInTurn(turns.history, deps, request('acme', 'a'), reply(), () => new Promise<void>((resolve) => (release = resolve)));
    await expect(readRepoInTurn(turns.files, deps, request('acme', 'a'), reply(), async () => 'file')).resolves.toBe('file');
    release();
    await held;
  });
});
