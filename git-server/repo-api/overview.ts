// `GET /api/overview`: a repository's operational state (src/repo-maintenance/overview.ts) in the API's
// snake_case, seqs as integers as the write answers give them. Read from the bucket's head and the maintenance
// objects; no git process, no cached copy.
import type { FastifyInstance } from 'fastify';
import { Type, type Static } from 'typebox';
import { repoOverview, type RepoOverview } from '../../src/repo-maintenance/overview.ts';
import { parseUrlRepoPath } from '../../src/repo-store/index.ts';
import type { RepoApiDependencies } from './dependencies.ts';
import type { StoredBytes } from '../plumbing/storage-quota.ts';
import type { RepoParams } from './repo-read.ts';
import { ErrorBodySchema, RepoParamsSchema } from './schemas.ts';

const Outcome = Type.Union([Type.Literal('succeeded'), Type.Literal('failed'), Type.Literal('interrupted')]);
const Seq = (description: string) => Type.Integer({ minimum: 0, description });
const At = Type.String({ description: 'ISO 8601.' });
const Count = (description: string) => Type.Integer({ minimum: 0, description });

export const RepoOverviewBody = Type.Object({
  repo: Type.String({ description: '`owner/name`.' }),
  head_seq: Seq('The newest log entry.'),
  log_start: Seq('The oldest log entry kept (older ones are folded into a checkpoint).'),
  packs: Type.Object({ count: Count('Live packs: a fetch reads each.'), bytes: Count('Their size.') }),
  refs: Type.Object(
    { count: Count('Refs the repository holds: branches, tags and any others.'), max: Count('How many it may hold (`quota.repository_max_refs`); a new ref past it is refused.') },
    { description: 'What the ref limit counts.' },
  ),
  storage: Type.Optional(
    Type.Object(
      {
        bytes: Count('What the repository stores: its live packs with their indexes, and its LFS objects.'),
        lfs_bytes: Count('Its LFS objects (listed at most a minute ago).'),
        quota_bytes: Count('What it may store (`quota.repository_max_size`); a push or upload past it is refused.'),
        owner_bytes: Count('What all repositories of its owner store together (the others as counted at most a minute ago).'),
        owner_quota_bytes: Count('What they may store together (`quota.owner_max_size`); a push or upload past it is refused.'),
      },
      { description: 'What the storage quota counts. Absent when the server has no quota.' },
    ),
  ),
  checkpoint: Type.Union([Type.Object({ seq: Seq('The seq it holds the state of.'), at: At }), Type.Null()], { description: 'The newest checkpoint; null before the first.' }),
  entries_since_checkpoint: Count('Log entries a reader replays on top of the checkpoint.'),
  last_compaction: Type.Union(
    [
      Type.Object({
        at: At,
        outcome: Outcome,
        packs_before: Count('Live packs before.'),
        packs_after: Count('Live packs after.'),
        bytes_before: Count('Their size before.'),
        bytes_after: Count('Their size after.'),
        message: Type.Optional(Type.String({ description: 'Why it failed.' })),
      }),
      Type.Null(),
    ],
    { description: 'Null before the first.' },
  ),
  last_fsck: Type.Union(
    [
      Type.Object({
        at: At,
        seq: Seq('The head whose state was checked.'),
        outcome: Outcome,
        missing_objects: Count('Objects the refs need that no live pack has.'),
        problems: Type.Array(Type.String(), { description: 'The first of git fsck’s problem lines.' }),
      }),
      Type.Null(),
    ],
    { description: 'Null before the first.' },
  ),
  last_gc: Type.Union([Type.Object({ at: At, outcome: Outcome, deleted_objects: Count('Bucket objects deleted.'), deleted_bytes: Count('Their size.') }), Type.Null()], {
    description: 'Null before the first.',
  }),
  pending: Type.Object({
    marker: Type.Boolean({ description: 'A write left a pending marker the maintainer has not consumed yet.' }),
    checkpoint_due: Type.Boolean(),
    compaction_due: Type.Boolean(),
  }),
  lease: Type.Union([Type.Object({ host: Type.String(), operation: Type.String(), expires_at: At }), Type.Null()], {
    description: 'The maintainer working on the repository now, if any.',
  }),
  maintainers: Type.Array(Type.Object({ host: Type.String(), at: At, interval_ms: Count('Its pass interval.') }), {
    description: 'Instances of the maintain role that reported recently (any repository).',
  }),
  health: Type.Object({
    status: Type.Union([Type.Literal('ok'), Type.Literal('degraded'), Type.Literal('error')]),
    problems: Type.Array(Type.Object({ problem: Type.String(), suggestion: Type.String({ description: 'What to do about it.' }) })),
  }),
});
export type RepoOverviewBody = Static<typeof RepoOverviewBody>;

export function overviewRoutes(scope: FastifyInstance, deps: RepoApiDependencies): void {
  scope.get('/overview', {
    config: { scope: 'read' },
    schema: {
      summary: 'Operational state: log, packs, checkpoint, the last maintenance of each kind, pending work, health with suggestions',
      params: RepoParamsSchema,
      response: { 200: RepoOverviewBody, 404: ErrorBodySchema },
    },
    handler: async (request, reply) => {
      const { owner, repo } = request.params as RepoParams;
      const path = parseUrlRepoPath(owner, repo);
      if (!deps.objects) throw new Error('the overview needs the object store (RepoApiDependencies.objects)');
      const head = await deps.repos.readHead(path.full);
      const [overview, stored] = await Promise.all([repoOverview(deps.objects, path, head), deps.quota?.stored(path, head)]);
      reply.header('cache-control', 'no-store');
      return overviewBody(overview, { count: head.refs.size, max: deps.repos.maxRefs }, stored);
    },
  });
}

export function overviewBody(o: RepoOverview, refs: RepoOverviewBody['refs'], stored?: StoredBytes): RepoOverviewBody {
  const c = o.lastCompaction;
  return {
    repo: o.repo,
    head_seq: o.headSeq,
    log_start: o.logStart,
    packs: { count: o.packs.count, bytes: o.packs.bytes },
    refs,
    ...(stored ? { storage: { bytes: stored.packs + stored.lfs, lfs_bytes: stored.lfs, quota_bytes: stored.quota, owner_bytes: stored.owner.bytes, owner_quota_bytes: stored.owner.quota } } : {}),
    checkpoint: o.checkpoint && { seq: o.checkpoint.seq, at: o.checkpoint.at },
    entries_since_checkpoint: o.entriesSinceCheckpoint,
    last_compaction: c && {
      at: c.at,
      outcome: c.outcome,
      packs_before: c.packsBefore,
      packs_after: c.packsAfter,
      bytes_before: c.bytesBefore,
      bytes_after: c.bytesAfter,
      ...(c.message === undefined ? {} : { message: c.message }),
    },
    last_fsck: o.lastFsck && { at: o.lastFsck.at, seq: o.lastFsck.seq, outcome: o.lastFsck.outcome, missing_objects: o.lastFsck.missingObjects, problems: [...o.lastFsck.problems] },
    last_gc: o.lastGc && { at: o.lastGc.at, outcome: o.lastGc.outcome, deleted_objects: o.lastGc.deletedObjects, deleted_bytes: o.lastGc.deletedBytes },
    pending: { marker: o.pending.marker, checkpoint_due: o.pending.checkpointDue, compaction_due: o.pending.compactionDue },
    lease: o.lease && { host: o.lease.host, operation: o.lease.operation, expires_at: o.lease.expiresAt },
    maintainers: o.maintainers.map((m) => ({ host: m.host, at: m.at, interval_ms: m.intervalMs })),
    health: { status: o.health.status, problems: o.health.problems.map((p) => ({ problem: p.problem, suggestion: p.suggestion })) },
  };
}
