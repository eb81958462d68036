import { keyOf, type KubeObject } from '../src/kube/index.ts';
import { compareResourceVersions } from '../src/kube/resource-version.ts';

/** A change of a project's apps not passed by its mark yet: its version, and the app it is of (none: one to act on never). */
interface Change {
  readonly version: string;
  readonly seq: number;
  readonly key?: string;
}

/**
 * How far this replica has acted on each project's apps: the `acted` mark of its RuntimeReplicaReports
 * (src/apis/v1alpha1/runtime-replica-report.ts). A project's changes are queued in the order the watch gives them
 * (resourceVersion order); a change is acted on once a reconcile of its app that began after it has recorded its
 * outcome (served, removed, failed, retrying), and the mark is the version of the last change of the queue's acted
 * prefix: everything up to it is acted on, whatever waits after. Changes the cache's projection hides need no
 * action. Per project, so one tenant's pending deploys hold back only its own mark, and never past its own oldest.
 */
export class ActedMarks {
  #seq = 0;
  /** Project → its changes not passed by its mark, oldest first. */
  readonly #queues = new Map<string, Change[]>();
  /** App key → its latest change queued (what a reconcile beginning now acts on). */
  readonly #latest = new Map<string, number>();
  /** App key → the latest change a finished reconcile acted on, while some of its changes are queued. */
  readonly #actedUpTo = new Map<string, number>();
  /** App key → how many of its changes are queued. */
  readonly #queued = new Map<string, number>();
  /** Project → its mark. */
  readonly #marks = new Map<string, string>();
  /** Project → the highest version passed, while the mark is held below an older change still waiting. */
  readonly #highestPassed = new Map<string, string>();
  /** Projects whose mark moved by hidden changes alone since `takeQuietlyMoved`. */
  #quietlyMoved = new Set<string>();

  /** A change the replica acts on (the cache's `onChange`). */
  changed(obj: KubeObject): void {
    const { namespace, name, resourceVersion } = obj.metadata ?? {};
    if (!namespace || !name || resourceVersion === undefined) return;
    const key = keyOf(namespace, name);
    const seq = ++this.#seq;
    this.#queueOf(namespace).push({ version: resourceVersion, seq, key });
    this.#latest.set(key, seq);
    this.#queued.set(key, (this.#queued.get(key) ?? 0) + 1);
  }

  /** A change the cache's projection hides (`onQuietChange`): nothing to act on. */
  changedQuietly(obj: KubeObject): void {
    const { namespace, resourceVersion } = obj.metadata ?? {};
    if (!namespace || resourceVersion === undefined) return;
    // A project's queue exists only while it holds a change.
    const queue = this.#queues.get(namespace);
    if (!queue) {
      if (this.#raise(namespace, resourceVersion)) this.#quietlyMoved.add(namespace);
      return;
    }
    // Behind a change waiting. One entry for a run of them (an app's deploys failing keep its project's queue open
    // while the operator's status writes go on): its highest version is all the mark can take from it.
    const last = queue.at(-1)!;
    if (last.key !== undefined) queue.push({ version: resourceVersion, seq: ++this.#seq });
    else if (compareResourceVersions(resourceVersion, last.version) > 0) queue[queue.length - 1] = { version: resourceVersion, seq: last.seq };
  }

  /** A reconcile of `key` begins: what it acts on (read from the cache now) includes every change of it queued so far. */
  begin(key: string): number | undefined {
    return this.#latest.get(key);
  }

  /** The reconcile that began with `token` has recorded its outcome (served, removed, failed, retrying). */
  acted(key: string, token: number | undefined): void {
    if (token === undefined || !this.#queued.has(key) || token <= (this.#actedUpTo.get(key) ?? 0)) return;
    this.#actedUpTo.set(key, token);
    this.#advance(key.slice(0, key.indexOf('/')));
  }

  /** The project's mark, if it has one yet. */
  mark(project: string): string | undefined {
    return this.#marks.get(project);
  }

  /** The projects whose mark moved by hidden changes alone since the last call: their reports may be rewritten lazily. */
  takeQuietlyMoved(): string[] {
    const moved = [...this.#quietlyMoved];
    this.#quietlyMoved = new Set();
    return moved;
  }

  /**
   * Raises the project's mark to `version`; true when it moved. Never lowers it: a relist gives changes in key
   * order, not version order, and once the queue before it is passed everything up to the highest is.
   */
  #raise(project: string, version: string): boolean {
    const mark = this.#marks.get(project);
    if (mark !== undefined && compareResourceVersions(version, mark) <= 0) return false;
    this.#marks.set(project, version);
    return true;
  }

  #queueOf(project: string): Change[] {
    let queue = this.#queues.get(project);
    if (!queue) this.#queues.set(project, (queue = []));
    return queue;
  }

  /** Moves the project's mark over the acted prefix of its queue. */
  #advance(project: string): void {
    const queue = this.#queues.get(project);
    if (!queue) return;
    let passed = 0;
    let highest = this.#highestPassed.get(project);
    for (const change of queue) {
      if (change.key !== undefined && change.seq > (this.#actedUpTo.get(change.key) ?? 0)) break;
      passed++;
      if (highest === undefined || compareResourceVersions(change.version, highest) > 0) highest = change.version;
      if (change.key === undefined) continue;
      const left = (this.#queued.get(change.key) ?? 1) - 1;
      if (left > 0) this.#queued.set(change.key, left);
      else {
        this.#queued.delete(change.key);
        this.#actedUpTo.delete(change.key);
        this.#latest.delete(change.key);
      }
    }
    if (passed === queue.length) this.#queues.delete(project);
    else if (passed > 0) queue.splice(0, passed);
    if (highest === undefined) return;
    // A relist gives changes in key order: one still waiting may be older than one passed. The mark stays below it.
    const waiting = this.#queues.get(project)?.filter((change) => change.key !== undefined) ?? [];
    if (waiting.length > 0) this.#highestPassed.set(project, highest);
    else this.#highestPassed.delete(project);
    const oldest = waiting.reduce<string | undefined>((min, change) => (min === undefined || compareResourceVersions(change.version, min) < 0 ? change.version : min), undefined);
    const below = oldest === undefined ? highest : compareResourceVersions(highest, oldest) < 0 ? highest : versionBefore(oldest);
    if (below !== undefined) this.#raise(project, below);
  }
}

/** The resourceVersion just before `version` (they are decimal integers, KEP-5504); none for a malformed one. */
function versionBefore(version: string): string | undefined {
  if (!/^[1-9][0-9]*$/.test(version)) return undefined;
  const before = BigInt(version) - 1n;
  return before > 0n ? before.toString() : undefined;
}
