import { compareResourceVersions } from '../src/kube/resource-version.ts';
import type { KubeObject } from '../src/kube/index.ts';

/**
 * How far this replica has acted on each project's apps: the `acted` mark of its RuntimeReplicaReports
 * (src/apis/v1alpha1/runtime-replica-report.ts). A project's mark is the resourceVersion of the latest change of
 * its apps the cache has seen, taken whenever none of them has a change not acted on yet (a reconcile that began
 * after the change and ended with its outcome recorded); while some has, the mark stays where it was, which is
 * still true. Changes the cache's projection hides need no action and move the mark at once. Per project, so one
 * tenant deploying all the time holds back only its own project's mark.
 */
export class ActedMarks {
  #seq = 0;
  /** App key → its latest change not acted on yet (a sequence number). */
  readonly #pending = new Map<string, number>();
  /** Project → how many of its apps have a change not acted on. */
  readonly #pendingIn = new Map<string, number>();
  /** Project → the resourceVersion of the latest change of its apps seen. */
  readonly #latest = new Map<string, string>();
  /** Project → its mark. */
  readonly #marks = new Map<string, string>();
  /** Projects whose mark moved by hidden changes alone since `takeQuietlyMoved`. */
  #quietlyMoved = new Set<string>();

  /** A change the replica acts on (the cache's `onChange`). */
  changed(obj: KubeObject): void {
    const key = keyOf(obj);
    if (!key) return;
    const { project } = key;
    this.#see(project, obj.metadata?.resourceVersion);
    if (!this.#pending.has(key.key)) this.#pendingIn.set(project, (this.#pendingIn.get(project) ?? 0) + 1);
    this.#pending.set(key.key, ++this.#seq);
  }

  /** A change the cache's projection hides (`onQuietChange`): nothing to act on. */
  changedQuietly(obj: KubeObject): void {
    const key = keyOf(obj);
    if (!key) return;
    this.#see(key.project, obj.metadata?.resourceVersion);
    if (this.#settle(key.project)) this.#quietlyMoved.add(key.project);
  }

  /** A reconcile of `key` begins: what it acts on (read from the cache now) includes every change seen so far. */
  begin(key: string): number | undefined {
    return this.#pending.get(key);
  }

  /** The reconcile that began with `token` has recorded its outcome (served, removed, failed). */
  acted(key: string, token: number | undefined): void {
    if (token === undefined || this.#pending.get(key) !== token) return;
    this.#pending.delete(key);
    const project = key.slice(0, key.indexOf('/'));
    const left = (this.#pendingIn.get(project) ?? 1) - 1;
    if (left > 0) this.#pendingIn.set(project, left);
    else this.#pendingIn.delete(project);
    this.#settle(project);
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

  #see(project: string, version: string | undefined): void {
    if (version === undefined) return;
    const latest = this.#latest.get(project);
    if (latest === undefined || compareResourceVersions(version, latest) > 0) this.#latest.set(project, version);
  }

  /** Moves the project's mark to its latest change when nothing of it waits; true when it moved. */
  #settle(project: string): boolean {
    if (this.#pendingIn.has(project)) return false;
    const latest = this.#latest.get(project);
    if (latest === undefined || this.#marks.get(project) === latest) return false;
    this.#marks.set(project, latest);
    return true;
  }
}

function keyOf(obj: KubeObject): { key: string; project: string } | undefined {
  const { namespace, name } = obj.metadata ?? {};
  return namespace && name ? { key: `${namespace}/${name}`, project: namespace } : undefined;
}
