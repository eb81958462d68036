import { setTimeout as sleep } from 'node:timers/promises';
import { RepositoryReasons, type Repository } from '../../src/apis/v1alpha1/repository.ts';
import { findCondition, type Condition } from '../../src/conditions/index.ts';
import { PublicError, UnavailableError } from '../../src/errors.ts';
import { isAlreadyExists, objectClient, statusCodeOf, type KubeConnection, type ObjectClient } from '../../src/kube/index.ts';
import { StoreUnavailableError } from '../../src/object-store/object-store.ts';
import { REPOSITORIES } from '../../src/platform/resources.ts';
import { InvalidRepoNameError, RepoExistsError, RepoNotFoundError, type RepoPath } from '../../src/repo-store/index.ts';
import { defaultBranchOf, type CreateRepositoryOptions, type DeleteRepositoryOptions, type RepositoryDirectory } from './repository-directory.ts';
import { KubeRepositoryResources } from './kube-repository-resources.ts';
import { repositoryResourceName } from './resource-name.ts';

export interface KubeRepositoryDirectoryOptions {
  kube: KubeConnection;
  /** Where the directory creates `Repository` resources (cw-git's `kubernetes.namespace`), unless a create names a project's. */
  namespace: string;
  /** How long a create waits for `Ready=True`, and a delete for the resource to be gone. Default 20 s. */
  timeoutMs?: number;
}

/** The controller did not finish in time; the caller may retry (503). Carries condition text, never a secret. */
export class RepositoryPendingError extends PublicError {
  override readonly name = 'RepositoryPendingError';
  readonly retryable = true;
  constructor(detail: string, retryAfterSeconds = 5) {
    super(503, detail, { 'retry-after': String(retryAfterSeconds) });
  }
}

/** Ready reasons meaning the name is held by something else: the create is refused, not awaited. */
const TAKEN: ReadonlySet<string> = new Set([RepositoryReasons.NameConflict, RepositoryReasons.RepositoryExists]);

/**
 * Repositories as `Repository` custom resources, for a cw-git running with the operator: `create` creates
 * the resource under a deterministic name ({@link repositoryResourceName}) and waits, bounded, for the
 * controller to report `Ready=True` (the repository is then in the bucket). A name taken by another
 * resource or by data already in the bucket (`NameConflict`, `RepositoryExists`) withdraws the resource
 * and throws `RepoExistsError`; a create not ready in time withdraws it too and throws a retryable
 * `RepositoryPendingError` (or `StoreUnavailableError` when the controller reports the store unreachable),
 * so a failed create leaves nothing behind. A create for a project (`options.namespace`) puts the resource in
 * that project's namespace, so the project owns it. `delete` deletes every resource of `owner/name` (in every
 * namespace, or only the project's) and waits until they are gone: their finalizer deletes the bucket data first.
 */
export class KubeRepositoryDirectory implements RepositoryDirectory {
  readonly #client: ObjectClient<Repository>;
  readonly #namespace: string;
  readonly #timeoutMs: number;
  /** Where the repositories' resources are, for the events role's push mark. */
  readonly resources: KubeRepositoryResources;

  constructor(options: KubeRepositoryDirectoryOptions) {
    this.#client = objectClient<Repository>(options.kube, REPOSITORIES);
    this.#namespace = options.namespace;
    this.#timeoutMs = options.timeoutMs ?? 20_000;
    this.resources = new KubeRepositoryResources(this.#client, this.#namespace);
  }

  async create(repo: RepoPath, options?: CreateRepositoryOptions): Promise<void> {
    const defaultBranch = defaultBranchOf(options);
    const name = repositoryResourceName(repo);
    const namespace = options?.namespace ?? this.#namespace;
    try {
      await this.#client.create({ metadata: { name, namespace }, spec: { owner: repo.owner, name: repo.name, defaultBranch } });
    } catch (err) {
      if (statusCodeOf(err) === 404) {
        if (options?.namespace) throw new RepositoryPendingError(`project ${namespace} has no namespace yet; retry in a few seconds`);
        throw new Error(`cannot create Repository resources: namespace ${namespace} does not exist (cw-git's kubernetes.namespace)`);
      }
      if (!isAlreadyExists(err)) throw unavailable(err);
      const existing = await this.#client.get(namespace, name).catch(() => undefined);
      if (existing?.metadata?.deletionTimestamp) throw new RepositoryPendingError(`repository ${repo.full} is being deleted; retry`, 1);
      throw new RepoExistsError(repo.full);
    }
    let ready: Condition | undefined;
    const done = await poll(this.#timeoutMs, async () => {
      const current = await this.#client.get(namespace, name).catch((err: unknown) => {
        throw unavailable(err);
      });
      ready = current?.status?.observedGeneration === current?.metadata?.generation ? findCondition(current?.status?.conditions, 'Ready') : undefined;
      return ready?.status === 'True' || TAKEN.has(ready?.reason ?? '') || ready?.reason === RepositoryReasons.InvalidName;
    });
    if (done && ready?.status === 'True') return;
    // Withdraw the request: what the controller made of it (if anything) is deleted by its finalizer.
    await this.#client.delete(namespace, name).catch(() => {});
    if (done && TAKEN.has(ready?.reason ?? '')) throw new RepoExistsError(repo.full);
    if (done) throw new InvalidRepoNameError(repo.full);
    if (ready?.reason === RepositoryReasons.StoreUnavailable) throw new StoreUnavailableError('create', undefined);
    const why = ready ? ` (${ready.reason}: ${ready.message})` : ' (is the operator running with CW_GIT_BUCKET?)';
    throw new RepositoryPendingError(`repository ${repo.full} was not ready within ${seconds(this.#timeoutMs)}${why}; the request was withdrawn, retry`);
  }

  async delete(repo: RepoPath, options?: DeleteRepositoryOptions): Promise<void> {
    // Every resource of the name, not only the directory's own: one made with kubectl counts, and a
    // NameConflict loser left behind would take the name over (and recreate it) once the holder is gone. A
    // project's token deletes only what its project holds.
    const list = await this.#client.list(options?.namespace ?? '').catch((err: unknown) => {
      throw unavailable(err);
    });
    const found = list.items.filter((r) => r.spec?.owner === repo.owner && r.spec?.name === repo.name).map((r) => ({ namespace: r.metadata?.namespace ?? '', name: r.metadata?.name ?? '' }));
    if (found.length === 0) throw new RepoNotFoundError(repo.full);
    let left: Repository[] = [];
    const gone = await poll(this.#timeoutMs, async () => {
      await Promise.all(found.map((r) => this.#client.delete(r.namespace, r.name))).catch((err: unknown) => {
        throw unavailable(err);
      });
      left = (await Promise.all(found.map((r) => this.#client.get(r.namespace, r.name)))).filter((r): r is Repository => r !== undefined);
      return left.length === 0;
    });
    if (gone) return;
    const reasons = left.map((r) => findCondition(r.status?.conditions, 'Ready'));
    if (reasons.some((c) => c?.reason === RepositoryReasons.StoreUnavailable)) throw new StoreUnavailableError('delete', undefined);
    const failed = reasons.find((c) => c?.reason === RepositoryReasons.DeletionFailed);
    const why = failed ? ` (${failed.message})` : '';
    throw new RepositoryPendingError(`deleting repository ${repo.full} did not finish within ${seconds(this.#timeoutMs)}${why}; it goes on in the background`);
  }
}

/**
 * Calls `probe` until it answers true or `timeoutMs` passed (then false). The interval grows from 50 to
 * 500 ms: the controller usually answers within a few hundred milliseconds, and a slow one is not hammered.
 */
async function poll(timeoutMs: number, probe: () => Promise<boolean>): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  for (let wait = 50; ; wait = Math.min(500, wait * 1.5)) {
    if (await probe()) return true;
    if (Date.now() + wait > deadline) return false;
    await sleep(wait);
  }
}

/** An apiserver that cannot be reached (no answer, 5xx, 429) is a retryable 503; anything else is ours to fix. */
function unavailable(err: unknown): unknown {
  const code = statusCodeOf(err);
  // A transport failure carries a system error code or a cause (fetch's TypeError); a bug carries neither.
  const transport = code === undefined && typeof err === 'object' && err !== null && ('cause' in err || typeof (err as { code?: unknown }).code === 'string');
  if (transport || (code !== undefined && (code >= 500 || code === 429))) return new UnavailableError('the Kubernetes API cannot be reached; retry');
  return err;
}

const seconds = (ms: number) => `${Math.round(ms / 100) / 10} s`;
