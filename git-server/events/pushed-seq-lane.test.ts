import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { RepoNotFoundError } from '../../src/repo-store/errors.ts';
import type { RepoPath } from '../../src/repo-store/repo-path.ts';
import type { RepositoryResource } from '../repositories/kube-repository-resources.ts';
import type { MarkOutcome } from './pushed-seq-marker.ts';
import { PushedSeqLane, type PushedSeqLaneOptions } from './pushed-seq-lane.ts';

/** The lane's two ports in memory: heads by repository, and a marker whose raises can be held and made to fail. */
class Fakes {
  readonly heads = new Map<string, number>();
  readonly raises: { repo: string; seq: number }[] = [];
  running = 0;
  maxRunning = 0;
  /** Raises wait for this while set. */
  gate: Promise<void> | undefined;
  /** Raises to fail, in order (true: fail). */
  readonly failures: boolean[] = [];
  #waiters: (() => void)[] = [];

  readonly repos: PushedSeqLaneOptions['repos'] = {
    readHead: async (repo) => {
      const seq = this.heads.get(repo);
      if (seq === undefined) throw new RepoNotFoundError(repo);
      return { seq } as Awaited<ReturnType<PushedSeqLaneOptions['repos']['readHead']>>;
    },
  };

  readonly marker = {
    raise: async (repo: RepoPath, seq: number): Promise<MarkOutcome> => {
      this.running++;
      this.maxRunning = Math.max(this.maxRunning, this.running);
      try {
        await this.gate;
        this.raises.push({ repo: repo.full, seq });
        this.#waiters.splice(0).forEach((wake) => wake());
        if (this.failures.shift()) throw new Error('apiserver unreachable');
        return 'raised';
      } finally {
        this.running--;
      }
    },
  };

  /** Resolves once `count` raises were attempted. */
  async attempts(count: number): Promise<void> {
    while (this.raises.length < count) await new Promise<void>((resolve) => this.#waiters.push(resolve));
  }
}

function held(): { gate: Promise<void>; release: () => void } {
  let release = () => {};
  const gate = new Promise<void>((resolve) => (release = resolve));
  return { gate, release };
}

function lane(fakes: Fakes, options: Partial<PushedSeqLaneOptions> = {}): PushedSeqLane {
  return new PushedSeqLane({
    repos: fakes.repos,
    marker: fakes.marker,
    resources: async () => [],
    registry: new Registry(),
    sweepIntervalMs: 0,
    backoff: { baseMs: 5, maxMs: 10 },
    ...options,
  });
}

describe('PushedSeqLane', () => {
  it('raises a woken repository’s mark to its head seq', async () => {
    const fakes = new Fakes();
    fakes.heads.set('acme/site', 12);
    expect(await lane(fakes).wake('acme/site')).toEqual({ repo: 'acme/site', outcome: 'raised', headSeq: 12 });
    expect(fakes.raises).toEqual([{ repo: 'acme/site', seq: 12 }]);
  });

  it('turns a storm of wake-ups into one more mark after the one under way, with the latest head', async () => {
    const fakes = new Fakes();
    fakes.heads.set('acme/site', 1);
    const hold = held();
    fakes.gate = hold.gate;
    const marks = lane(fakes);
    const first = marks.wake('acme/site');
    await new Promise((resolve) => setImmediate(resolve));
    fakes.heads.set('acme/site', 50);
    const storm = Array.from({ length: 100 }, () => marks.wake('acme/site'));
    hold.release();
    fakes.gate = undefined;
    expect(await first).toMatchObject({ outcome: 'raised', headSeq: 1 });
    const results = await Promise.all(storm);
    expect(new Set(results.map((r) => r.headSeq))).toEqual(new Set([50]));
    expect(fakes.raises).toEqual([
      { repo: 'acme/site', seq: 1 },
      { repo: 'acme/site', seq: 50 },
    ]);
    expect(fakes.maxRunning).toBe(1);
  });

  it('marks at most `concurrency` repositories at once, and refuses notifications beyond the queue', async () => {
    const fakes = new Fakes();
    const repos = Array.from({ length: 6 }, (_, i) => `acme/r${i}`);
    for (const repo of repos) fakes.heads.set(repo, 3);
    const hold = held();
    fakes.gate = hold.gate;
    const marks = lane(fakes, { concurrency: 2, queueLimit: 3 });
    const woken = repos.map((repo) => marks.wake(repo));
    await new Promise((resolve) => setImmediate(resolve));
    hold.release();
    const results = await Promise.all(woken);
    expect(results.map((r) => r.outcome)).toEqual(['raised', 'raised', 'raised', 'raised', 'raised', 'not_queued']);
    expect(fakes.maxRunning).toBe(2);
  });

  it('retries a failed mark after a backoff, deferring the wake-ups meanwhile', async () => {
    const fakes = new Fakes();
    fakes.heads.set('acme/site', 4);
    fakes.failures.push(true);
    const marks = lane(fakes, { backoff: { baseMs: 200, maxMs: 200 } });
    const failed = await marks.wake('acme/site');
    expect(failed).toMatchObject({ outcome: 'failed', reason: 'the Repository resource could not be read or patched', headSeq: 4 });
    expect(failed.retryInMs).toBeGreaterThanOrEqual(100);
    expect(await marks.wake('acme/site')).toMatchObject({ outcome: 'deferred' });
    fakes.heads.set('acme/site', 5);
    await fakes.attempts(2);
    expect(fakes.raises).toEqual([
      { repo: 'acme/site', seq: 4 },
      { repo: 'acme/site', seq: 5 },
    ]);
  });

  it('sweeps every repository that has a resource, once each; a repository not in the bucket is gone', async () => {
    const fakes = new Fakes();
    fakes.heads.set('acme/a', 2);
    fakes.heads.set('acme/b', 9);
    const listed = (repo: string): RepositoryResource => ({ repo, resource: { spec: { owner: 'acme', name: repo.slice(5) } } });
    const marks = lane(fakes, { resources: async () => [listed('acme/a'), listed('acme/b'), listed('acme/b'), listed('acme/deleted')] });
    await marks.sweep();
    expect(fakes.raises.sort((x, y) => x.repo.localeCompare(y.repo))).toEqual([
      { repo: 'acme/a', seq: 2 },
      { repo: 'acme/b', seq: 9 },
    ]);
    expect(await marks.wake('acme/deleted')).toEqual({ repo: 'acme/deleted', outcome: 'gone' });
  });

  it('takes no wake-up once draining, and lets the mark under way finish', async () => {
    const fakes = new Fakes();
    fakes.heads.set('acme/site', 1);
    const hold = held();
    fakes.gate = hold.gate;
    const marks = lane(fakes);
    const running = marks.wake('acme/site');
    await new Promise((resolve) => setImmediate(resolve));
    const waiting = marks.wake('acme/site');
    const drained = marks.drain(5_000);
    expect(await waiting).toMatchObject({ outcome: 'abandoned' });
    expect(await marks.wake('acme/site')).toMatchObject({ outcome: 'abandoned' });
    hold.release();
    await drained;
    expect(await running).toMatchObject({ outcome: 'raised' });
    expect(fakes.raises).toHaveLength(1);
  });
});
