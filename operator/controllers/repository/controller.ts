import type { Registry } from 'prom-client';
import { ADOPT_REPO_ID_ANNOTATION, REPOSITORY_FINALIZER, type Repository } from '../../../src/apis/v1alpha1/repository.ts';
import { findCondition, statusChanged } from '../../../src/conditions/index.ts';
import { objectClient, objectKey, type Informer, type KubeConnection } from '../../../src/kube/index.ts';
import { StoreUnavailableError } from '../../../src/object-store/object-store.ts';
import { REPOSITORIES } from '../../../src/platform/resources.ts';
import { settle } from '../../../src/platform/settle.ts';
import { cachedMaintainers, repoOverview } from '../../../src/repo-maintenance/index.ts';
import { InvalidRepoNameError, RepoExistsError, RepoNotFoundError, parseRepoPath, type RepoHead, type RepoPath } from '../../../src/repo-store/index.ts';
import { KeyedMutex } from '../../../src/collections/keyed-mutex.ts';
import { Controller, type Result } from '../../../src/controller-runtime/controller.ts';
import type { EventRecorder } from '../../../src/controller-runtime/events.ts';
import { addFinalizer, hasFinalizer, removeFinalizer } from '../../../src/controller-runtime/finalizers.ts';
import type { Logger } from '../../../src/logging/log.ts';
import { controllerRateLimiter } from '../../../src/controller-runtime/rate-limiter.ts';
import type { RepositoryBucket } from './bucket.ts';
import { desiredStatus, statusPatch, type Maintenance, type Observation } from './desired-status.ts';
import { foreignOwnerOf, nameHolder } from './holder.ts';
import { RepositoryPathIndex, repositoryPath } from './path-index.ts';
import { cleanupAction, decide, type BucketState, type Decision } from './plan.ts';
import { withStalled } from '../../../src/conditions/stalled.ts';

export interface RepositoryControllerDeps {
  kube: KubeConnection;
  repositories: Informer<Repository>;
  /** The repositories' bucket (cw-git's `store.bucket`). */
  store: RepositoryBucket;
  events: EventRecorder;
  registry: Registry;
  log: Logger;
  /** How often a held repository's `headSeq`, `pristine` and maintenance fields are refreshed from the bucket. Default 45 s. */
  refreshMs?: number;
  /** The project a namespace belongs to (its `cloudwright.dev/project` label), if any. Default: none. */
  projectOfNamespace?: (namespace: string) => string | undefined;
  now?: () => Date;
}

/** The Ready and Healthy reasons recorded as Normal Events; every other one needs attention (Warning). */
const NORMAL: ReadonlySet<string> = new Set(['Available', 'Healthy']);

/**
 * Keeps each Repository resource's repository in the bucket. The resource holding `{owner}/{name}` (see
 * holder.ts; the others report NameConflict) gets a finalizer, then its repository is created or found
 * (plan.ts decides what may be adopted) and its incarnation recorded in `status.repoId`; `headSeq`,
 * `pristine`, the maintenance fields and the Healthy condition (from the repository's maintenance
 * overview) are refreshed every `refreshMs`, written only when they changed. Deleting the resource deletes
 * the bucket data of its incarnation, then drops the finalizer. A store failure becomes a condition and a
 * retry with backoff. Reconciles of one `{owner}/{name}` run one at a time, and a new claim is awaited in
 * the cache before the next, so two resources of one name never both decide they hold it.
 */
export function repositoryController(deps: RepositoryControllerDeps): Controller<Repository> {
  const client = objectClient<Repository>(deps.kube, REPOSITORIES);
  const index = new RepositoryPathIndex(deps.repositories); // subscribed before the controller: see its doc
  const byPath = new KeyedMutex();
  const now = deps.now ?? (() => new Date());
  const refreshMs = deps.refreshMs ?? 45_000;
  const projectOf = deps.projectOfNamespace ?? (() => undefined);
  // One read of the maintainers' heartbeats serves every repository's overview for a while.
  const maintainers = cachedMaintainers(deps.store.objects, Math.min(refreshMs, 30_000));

  /** The repository's head, or `undefined` when the bucket has no manifest of that name. */
  const readHead = async (path: RepoPath): Promise<RepoHead | undefined> => {
    try {
      return await deps.store.repos.readHead(path.full);
    } catch (err) {
      if (err instanceof RepoNotFoundError) return undefined;
      throw err;
    }
  };
  const bucketState = (head: RepoHead | undefined): BucketState => (head ? { kind: 'present', repoId: head.repoId, seq: head.seq } : { kind: 'missing' });

  /** Brings the bucket in line for the holder of the name; what it did, and the head it holds, if any. */
  const converge = async (repo: Repository, path: RepoPath): Promise<Exclude<Decision, { kind: 'create' | 'hold' }> | { kind: 'hold'; head: RepoHead }> => {
    const claim = repo.status?.repoId;
    const adopt = repo.metadata?.annotations?.[ADOPT_REPO_ID_ANNOTATION];
    let head = await readHead(path);
    let decision = decide(claim, adopt, bucketState(head));
    if (decision.kind === 'create') {
      try {
        return { kind: 'hold', head: await deps.store.repos.createRepo(path.full, { headRef: `refs/heads/${repo.spec.defaultBranch ?? 'main'}` }) };
      } catch (err) {
        if (!(err instanceof RepoExistsError)) throw err;
        // Created by someone else since we looked: decide again on what is there now.
        head = await readHead(path);
        decision = decide(claim, adopt, bucketState(head));
        if (decision.kind === 'create') throw new Error(`${path.full} was created and deleted meanwhile; retrying`);
      }
    }
    if (decision.kind !== 'hold') return decision;
    if (!head) throw new Error(`${path.full}: decided to hold a repository that is not in the bucket`); // decide holds only a present head
    return { kind: 'hold', head };
  };

  /** The held repository's maintenance overview; a failure to read it is reported in Healthy, never in Ready. */
  const maintenance = async (path: RepoPath, head: RepoHead, log: Logger): Promise<Maintenance> => {
    try {
      return { kind: 'overview', overview: await repoOverview(deps.store.objects, path, head, now(), maintainers) };
    } catch (err) {
      log.warn('the maintenance status cannot be read', { err });
      if (err instanceof StoreUnavailableError) return { kind: 'store-unavailable' };
      return { kind: 'store-error', errorName: err instanceof Error ? err.name : 'Error' };
    }
  };

  /** A failed step against the bucket, as what the status says about it (the log gets the error itself). */
  const failure = (err: unknown, deleting: boolean, log: Logger): Observation => {
    if (err instanceof InvalidRepoNameError) return { kind: 'invalid-name', detail: err.message };
    log.warn(deleting ? 'deleting the repository from the bucket failed' : 'the bucket cannot be read', { err });
    if (err instanceof StoreUnavailableError) return { kind: 'store-unavailable', deleting };
    return { kind: 'store-error', errorName: err instanceof Error ? err.name : 'Error', deleting };
  };

  const writeStatus = async (repo: Repository, observation: Observation): Promise<void> => {
    const at = now();
    const computed = desiredStatus(repo, observation, at);
    const status = { ...computed, conditions: withStalled('Repository', computed.conditions, repo.metadata?.generation, at) };
    if (!statusChanged(repo.status, status)) return;
    const { namespace = '', name = '', resourceVersion } = repo.metadata ?? {};
    const written = await client.patchStatus(namespace, name, { metadata: { resourceVersion }, status: statusPatch(repo.status, status) });
    if (status.repoId !== repo.status?.repoId) {
      // A new claim changes who holds the name: the next reconcile of this name must see it (holder.ts).
      await settle(deps.repositories, objectKey(repo), (cached) => cached?.metadata?.resourceVersion !== resourceVersion);
    }
    for (const type of ['Ready', 'Healthy']) {
      const [before, after] = [findCondition(repo.status?.conditions, type), findCondition(written.status?.conditions, type)];
      if (!after || (before?.status === after.status && before.reason === after.reason)) continue;
      if (type === 'Healthy' && after.status === 'Unknown') continue; // not being able to look is Ready's Event, or the log's
      void deps.events.event(written, NORMAL.has(after.reason) ? 'Normal' : 'Warning', after.reason, after.message);
    }
  };

  const reconcile = async (key: string, log: Logger): Promise<Result> => {
    let repo = deps.repositories.get(key);
    if (!repo) return;
    const path = (() => {
      try {
        return parseRepoPath(repositoryPath(repo));
      } catch (err) {
        return err as InvalidRepoNameError;
      }
    })();

    if (repo.metadata?.deletionTimestamp) {
      if (!hasFinalizer(repo, REPOSITORY_FINALIZER)) return;
      if (!(path instanceof InvalidRepoNameError)) {
        const claim = repo.status?.repoId;
        try {
          if (cleanupAction(claim, bucketState(await readHead(path))) === 'delete') await deps.store.repos.deleteRepo(path.full);
        } catch (err) {
          await writeStatus(repo, failure(err, true, log));
          return { requeue: true };
        }
        log.info(claim ? 'repository deleted from the bucket' : 'nothing of this resource in the bucket', { repo: path.full });
      }
      await removeFinalizer(client, repo, REPOSITORY_FINALIZER);
      return;
    }

    if (path instanceof InvalidRepoNameError) {
      await writeStatus(repo, { kind: 'invalid-name', detail: path.message });
      return;
    }
    const project = foreignOwnerOf(repo, projectOf);
    if (project !== undefined) {
      await writeStatus(repo, { kind: 'owner-not-allowed', project });
      return { requeueAfter: refreshMs };
    }
    const holder = nameHolder(index.resources(path.full).filter((r) => foreignOwnerOf(r, projectOf) === undefined));
    if (holder && objectKey(holder) !== key) {
      await writeStatus(repo, { kind: 'conflict', holder: objectKey(holder) });
      return { requeueAfter: refreshMs }; // the holder's own changes re-check this one sooner (owns)
    }
    // Before anything exists in the bucket, so a delete from now on always goes through the cleanup.
    repo = await addFinalizer(client, repo, REPOSITORY_FINALIZER);
    let observation: Observation;
    try {
      const converged = await converge(repo, path);
      observation = converged.kind === 'hold' ? { kind: 'hold', repoId: converged.head.repoId, seq: converged.head.seq, maintenance: await maintenance(path, converged.head, log) } : converged;
    } catch (err) {
      observation = failure(err, false, log);
    }
    await writeStatus(repo, observation);
    const unreadable = observation.kind === 'hold' ? observation.maintenance : observation;
    if (unreadable.kind === 'store-unavailable' || unreadable.kind === 'store-error') return { requeue: true };
    return { requeueAfter: refreshMs };
  };

  return new Controller<Repository>({
    name: 'repository',
    kind: 'Repository',
    source: deps.repositories,
    // Any change to one resource of a name re-checks the others: the holder going away hands the name on.
    owns: [
      {
        kind: 'Repository',
        source: deps.repositories,
        mapToOwner: (obj) =>
          index
            .resources(repositoryPath(obj as Repository))
            .map(objectKey)
            .filter((k) => k !== objectKey(obj)),
      },
    ],
    registry: deps.registry,
    log: deps.log,
    workers: 4,
    // While the store is unreachable, retry with client-go's default backoff, capped at a minute per item.
    rateLimiter: controllerRateLimiter<string>({ maxMs: 60_000 }),
    reconcile: async (key, { log }) => {
      const repo = deps.repositories.get(key);
      return byPath.run(repo ? repositoryPath(repo) : key, () => reconcile(key, log));
    },
  });
}
