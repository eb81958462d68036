// The maintainer's pass order and bounds with stand-in units (review-177 F6): owners take turns, an owner whose
// units took its budget waits for the next pass (checked between units too), which resumes after where this one
// stopped, and a unit past its deadline is interrupted with its marker kept, the others run, and it backs off.
// Real units: maintainer.int.test.ts.
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { MemoryObjectStore } from '../src/object-store/memory-object-store.ts';
import type { MaintenanceOp } from '../src/repo-maintenance/index.ts';
import { parseRepoPath, RepoStore } from '../src/repo-store/index.ts';
import { markOrphanedPack } from '../src/repo-store/pending.ts';
import { Maintainer, type MaintainerOptions, type TaskOutcome } from './maintainer.ts';

const ATTACKER = Array.from({ length: 6 }, (_, i) => `0mallory/r${i}`);

/** `repos` created and marked (each due for fsck and gc), a maintainer over them, and the units it ran. */
async function marked(repos: readonly string[], options: Partial<MaintainerOptions> & { unit?: (repo: string, signal: AbortSignal, op: MaintenanceOp) => Promise<TaskOutcome> } = {}) {
  const store = new MemoryObjectStore();
  const registry = new Registry();
  const repoStore = new RepoStore({ store, registry });
  for (const repo of repos) {
    await repoStore.createRepo(repo);
    await markOrphanedPack(store, registry, parseRepoPath(repo), new Date());
  }
  const ran: string[] = [];
  const unit = options.unit ?? (async () => 'succeeded' as const);
  const maintainer = new Maintainer({
    repos: repoStore,
    store,
    context: { workDir: await mkdtemp(join(tmpdir(), 'cw-maintainer-')), now: () => new Date(), graceMs: 0 },
    host: 'h',
    intervalMs: 60_000,
    registry,
    log: pino({ level: 'silent' }),
    runTask: async (repo: string, op: MaintenanceOp, signal: AbortSignal) => {
      ran.push(`${repo}:${op}`);
      return unit(repo, signal, op);
    },
    ...options,
  });
  const pending = async () => (await repoStore.listPending()).map((m) => m.repo).sort();
  return { maintainer, ran, pending };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Units that succeed, but `repo`'s fsck, which would run for ever: it ends when it is interrupted. */
function endlessFsckOf(repo: string) {
  return async (unitRepo: string, signal: AbortSignal, op?: MaintenanceOp): Promise<TaskOutcome> => {
    if (unitRepo !== repo || op !== 'fsck') return 'succeeded';
    await new Promise((resolve) => signal.addEventListener('abort', resolve, { once: true }));
    return 'interrupted';
  };
}

describe('Maintainer', () => {
  it("serves owners in turn: another owner's repository is second, not after all of an early-sorting owner's (review-177 F6)", async () => {
    const { maintainer, ran } = await marked([...ATTACKER, 'victor/site']);
    await maintainer.pass();
    expect(ran.slice(0, 4)).toEqual(['0mallory/r0:fsck', '0mallory/r0:gc', 'victor/site:fsck', 'victor/site:gc']);
    expect(ran).toHaveLength(14);
  });

  it('defers an owner whose units took its budget of the pass, and resumes next pass after where it stopped', async () => {
    const { maintainer, ran, pending } = await marked([...ATTACKER, 'victor/site'], {
      ownerBudgetMs: 30,
      unit: async () => {
        await sleep(20);
        return 'succeeded';
      },
    });
    const first = await maintainer.pass();
    // 0mallory's first repository (two units, 40 ms) spent its budget; victor's was served; the rest wait.
    expect(ran).toEqual(['0mallory/r0:fsck', '0mallory/r0:gc', 'victor/site:fsck', 'victor/site:gc']);
    expect(first.repos.filter((r) => r.outcome === 'deferred').map((r) => r.repo)).toEqual(ATTACKER.slice(1));
    expect(await pending()).toEqual(ATTACKER.slice(1));
    ran.length = 0;
    await maintainer.pass();
    expect(ran).toEqual(['0mallory/r1:fsck', '0mallory/r1:gc']);
  });

  it("interrupts a unit past its deadline, keeps its marker, runs the repository's other units, and goes on with the next repository (review-181 M2)", async () => {
    const { maintainer, ran, pending } = await marked(['0mallory/r0', 'victor/site'], { unitDeadlineMs: 50, unit: endlessFsckOf('0mallory/r0') });
    const report = await maintainer.pass();
    expect(report.repos).toEqual([
      { repo: '0mallory/r0', ran: ['fsck', 'gc'], outcome: 'timed-out' },
      { repo: 'victor/site', ran: ['fsck', 'gc'], outcome: 'done' },
    ]);
    expect(ran).toEqual(['0mallory/r0:fsck', '0mallory/r0:gc', 'victor/site:fsck', 'victor/site:gc']);
    expect(await pending()).toEqual(['0mallory/r0']);
  });

  it('backs a unit cut at its deadline off for a growing number of passes; the other units still run (review-181 M2)', async () => {
    const { maintainer, ran } = await marked(['0mallory/r0'], { unitDeadlineMs: 30, unit: endlessFsckOf('0mallory/r0') });
    const outcomes: string[] = [];
    for (let pass = 0; pass < 6; pass++) {
      ran.length = 0;
      const report = await maintainer.pass();
      outcomes.push(`${ran.join(',')} ${report.repos[0]?.outcome}`);
    }
    // Cut once: one pass out; cut twice: two passes out.
    expect(outcomes).toEqual([
      '0mallory/r0:fsck,0mallory/r0:gc timed-out',
      '0mallory/r0:gc backed-off',
      '0mallory/r0:fsck,0mallory/r0:gc timed-out',
      '0mallory/r0:gc backed-off',
      '0mallory/r0:gc backed-off',
      '0mallory/r0:fsck,0mallory/r0:gc timed-out',
    ]);
  });

  it("checks the owner's budget between a repository's units, not only before it (review-181 M2)", async () => {
    const { maintainer, ran, pending } = await marked(['0mallory/r0', 'victor/site'], {
      ownerBudgetMs: 30,
      unit: async () => {
        await sleep(40);
        return 'succeeded';
      },
    });
    const report = await maintainer.pass();
    expect(report.repos).toEqual([
      { repo: '0mallory/r0', ran: ['fsck'], outcome: 'deferred' },
      { repo: 'victor/site', ran: ['fsck'], outcome: 'deferred' },
    ]);
    expect(ran).toEqual(['0mallory/r0:fsck', 'victor/site:fsck']);
    expect(await pending()).toEqual(['0mallory/r0', 'victor/site']);
  });
});
