// Where a push's time goes on its way to production, seen from the apiserver: watches on the project's
// Repositories, SourceBuilds and RuntimeApps note when each step first shows (the watch event's arrival in this
// process, in ms: creationTimestamp has whole seconds only), beside the SourceBuild's own startedAt/finishedAt.
import type { Build } from '../src/apis/v1alpha1/build.ts';
import type { Repository } from '../src/apis/v1alpha1/repository.ts';
import { PUSHED_SEQ_ANNOTATION } from '../src/apis/v1alpha1/repository.ts';
import type { RuntimeApp } from '../src/apis/v1alpha1/runtime-app.ts';
import type { SourceBuild } from '../src/apis/v1alpha1/source-build.ts';
import { createInformer, type Informer, type KubeConnection } from '../src/kube/index.ts';
import { BUILDS, REPOSITORIES, RUNTIME_APPS, SOURCE_BUILDS } from '../src/platform/resources.ts';

/** The steps, in order, each as ms since the epoch (Date.now()) when first seen. */
export interface Milestones {
  /** The Repository's pushed-seq annotation changed (cw-git's events role, woken by MinIO). */
  annotated?: number;
  /** The SourceBuild of the commit exists (the AppSource controller read the refs). */
  created?: number;
  building?: number;
  /** The commit's source archived into the bucket (the status gets the commit's author): the run starts next. */
  exported?: number;
  /** A new Build of the app exists: the run ended, its output was packed and stored (the artifact, then the Build). */
  stored?: number;
  succeeded?: number;
  /** The app's spec.activeBuildId names the build's Build. */
  activated?: number;
  /** The SourceBuild's own status.startedAt and finishedAt (the operator's clock: this machine's). */
  startedAt?: number;
  finishedAt?: number;
}

interface Expecting {
  readonly repo: string;
  readonly app: string;
  readonly build: string;
  readonly seqBefore: string | undefined;
  /** The app's Builds before the push: the first one not among them is this push's. */
  readonly buildsBefore: ReadonlySet<string>;
  readonly at: Milestones;
}

export class PushTimeline {
  readonly #repos: Informer<Repository>;
  readonly #builds: Informer<SourceBuild>;
  readonly #apps: Informer<RuntimeApp>;
  readonly #stored: Informer<Build>;
  #expecting: Expecting | undefined;

  constructor(conn: KubeConnection, namespace: string) {
    this.#repos = createInformer<Repository>(conn, REPOSITORIES, { namespace });
    this.#builds = createInformer<SourceBuild>(conn, SOURCE_BUILDS, { namespace });
    this.#apps = createInformer<RuntimeApp>(conn, RUNTIME_APPS, { namespace });
    this.#stored = createInformer<Build>(conn, BUILDS, { namespace });
    this.#repos.onChange(() => this.#note());
    this.#builds.onChange(() => this.#note());
    this.#apps.onChange(() => this.#note());
    this.#stored.onChange(() => this.#note());
  }

  get #informers() {
    return [this.#repos, this.#builds, this.#apps, this.#stored] as const;
  }

  async start(): Promise<void> {
    for (const informer of this.#informers) informer.start();
    await Promise.all(this.#informers.map((informer) => informer.waitForSync()));
  }

  stop(): void {
    for (const informer of this.#informers) informer.stop();
  }

  /** Starts noting the steps of a push of `commit` to `repo`, built for `app`; call just before `git push`. */
  expect(repo: string, app: string, commit: string): Milestones {
    const at: Milestones = {};
    this.#expecting = { repo, app, build: `${app}-${commit.slice(0, 12)}`, seqBefore: this.#seq(repo), buildsBefore: new Set(this.#buildsOf(app)), at };
    return at;
  }

  #seq(repo: string): string | undefined {
    return this.#repos.list().find((r) => r.metadata?.name === repo)?.metadata?.annotations?.[PUSHED_SEQ_ANNOTATION];
  }

  #buildsOf(app: string): string[] {
    return this.#stored
      .list()
      .filter((b) => b.spec.app === app)
      .map((b) => b.metadata?.name ?? '');
  }

  #note(): void {
    const e = this.#expecting;
    if (!e) return;
    const now = Date.now();
    const { at } = e;
    if (at.annotated === undefined && this.#seq(e.repo) !== e.seqBefore) at.annotated = now;
    const build = this.#builds.list().find((b) => b.metadata?.name === e.build);
    if (build) {
      at.created ??= now;
      const state = build.status?.state;
      if (state === 'Building' || state === 'Succeeded') at.building ??= now;
      if (build.status?.author !== undefined) at.exported ??= now;
      if (this.#buildsOf(e.app).some((name) => !e.buildsBefore.has(name))) at.stored ??= now;
      if (state === 'Succeeded') at.succeeded ??= now;
      if (build.status?.startedAt) at.startedAt = Date.parse(build.status.startedAt);
      if (build.status?.finishedAt) at.finishedAt = Date.parse(build.status.finishedAt);
      const buildId = build.status?.buildId;
      const app = this.#apps.list().find((a) => a.metadata?.name === e.app);
      if (buildId && app?.spec.activeBuildId === buildId) at.activated ??= now;
    }
  }
}
