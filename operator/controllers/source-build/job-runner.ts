// BuildRunner on Kubernetes Jobs: one Job per run id in the builds namespace (build-job.ts says what its pod
// gets), watched through informers on that namespace's build Jobs and pods; the pod's log followed to
// `events.log`, the end read from the Job's conditions and the pod's final state (job-outcome.ts).
import {
  createInformer,
  followPodLog,
  isAlreadyExists,
  JOBS,
  KubeApiError,
  objectClient,
  PODS,
  type Informer,
  type KubeConnection,
  type ObjectClient,
  type PodLogFollow,
} from '../../../src/kube/index.ts';
import type { Logger } from '../../../src/logging/log.ts';
import { BUILD_CONTAINER, BUILD_SELECTOR, buildJob, checkRunSpec, JOB_NAME_LABEL, jobName, type BuildJobSettings, type Job } from './build-job.ts';
import type { BuildRunner, BuildRunSpec, RunEvents, RunResult } from './build-runner.ts';
import { containerStarted, containerState, runOutcome, type BuildPod } from './job-outcome.ts';
import { foreignJob, isRunJob } from './job-ownership.ts';
import { jobRefusal } from './job-refusal.ts';
import { LogBudget } from './log-budget.ts';

/** How long the end of a run waits for the rest of its log once the Job has ended. */
const LOG_DRAIN_MS = 5000;
/** Kept of the log for the failure message, when the pod's termination message is not there. */
const TAIL_BYTES = 4096;
/** Before following a log again whose connection ended while the container still runs. */
const REFOLLOW_DELAY_MS = 1000;

interface Run {
  readonly spec: BuildRunSpec;
  /** The Job's name (build-job.ts's jobName of the run's id): runs are keyed by it. */
  readonly name: string;
  events: RunEvents;
  /** Set once the watch has shown the Job: its disappearance afterwards ends the run. */
  seen: boolean;
  stopping: boolean;
  ending: boolean;
  /** The log being followed (or starting to be), for the pod of this uid. */
  following?: { podUid: string; follow: Promise<PodLogFollow | undefined> };
  tail: string;
  /** What of the log is still read: none once the bucket's log is full. */
  readonly budget: LogBudget;
  /**
   * The pod as last seen: the Job controller deletes it when the deadline passes, which the pod watch may show
   * before the Job's condition; the end is judged from what it was then.
   */
  pod?: BuildPod;
  /** When the last chunk of log came, to follow again from there. */
  lastLogAt?: Date;
}

export interface JobRunnerOptions {
  conn: KubeConnection;
  settings: BuildJobSettings;
  log: Logger;
}

export class JobRunner implements BuildRunner {
  readonly kind = 'job';
  readonly #conn: KubeConnection;
  readonly #settings: BuildJobSettings;
  readonly #log: Logger;
  readonly #jobClient: ObjectClient<Job>;
  readonly #jobs: Informer<Job>;
  readonly #pods: Informer<BuildPod>;
  readonly #runs = new Map<string, Run>();
  #started = false;

  constructor(options: JobRunnerOptions) {
    this.#conn = options.conn;
    this.#settings = options.settings;
    this.#log = options.log.child({ runner: 'job', namespace: options.settings.namespace });
    this.#jobClient = objectClient<Job>(this.#conn, JOBS);
    const scope = { namespace: this.#settings.namespace, labelSelector: BUILD_SELECTOR };
    const onError = (err: unknown, info: { phase: string; retryInMs?: number }) => this.#log.warn('watch of build Jobs or pods failed', { err, ...info });
    this.#jobs = createInformer<Job>(this.#conn, JOBS, { ...scope, onError });
    this.#pods = createInformer<BuildPod>(this.#conn, PODS, { ...scope, onError });
    this.#jobs.onChange((job) => this.#check(job.metadata?.name ?? ''));
    this.#pods.onChange((pod) => this.#check(pod.metadata?.labels?.[JOB_NAME_LABEL] ?? ''));
  }

  async run(spec: BuildRunSpec, events: RunEvents): Promise<void> {
    checkRunSpec(spec);
    await this.#start();
    const name = jobName(spec.id);
    const known = this.#runs.get(name);
    if (known?.spec.id === spec.id) {
      // Asked again (a controller's retry): the run goes on, reporting to the newer listener.
      known.events = events;
      return;
    }
    if (known) {
      // Another run shortened to the same name (a hash collision): never shared.
      events.finished({ outcome: 'failed', reason: 'RunnerFailed', message: `the build Job ${name} is another run's` });
      return;
    }
    if (!this.#jobs.get(this.#key(name))) {
      const job = buildJob(spec, this.#settings);
      try {
        await this.#jobClient.create(job);
      } catch (err) {
        // What the build asks makes a Job the apiserver refuses (invalid, or too large): no retry can help.
        if (err instanceof KubeApiError && (err.code === 422 || err.code === 413)) {
          const message = jobRefusal(err, job);
          // For an administrator too: a refusal of what the platform's settings put in every Job fails every build.
          this.#log.warn('the apiserver refused a build Job', { job: name, refusal: message });
          events.finished({ outcome: 'failed', reason: 'RunnerFailed', message });
          return;
        }
        // A Job of this name exists (an operator restart, or a watch that has not shown it yet): followed once
        // #check has seen it is this run's.
        if (!isAlreadyExists(err)) throw err;
      }
    }
    this.#runs.set(name, { spec, name, events, seen: false, stopping: false, ending: false, tail: '', budget: new LogBudget() });
    this.#check(name);
  }

  async stop(id: string): Promise<void> {
    const name = jobName(id);
    const run = this.#runs.get(name);
    if (run) run.stopping = true;
    const job = this.#jobs.get(this.#key(name)) ?? (await this.#jobClient.get(this.#settings.namespace, name));
    if (job && !isRunJob(job, id)) {
      // The name is another run's Job (another project's, in the shared namespace): never stopped from here.
      this.#log.warn("not stopping a build Job that is another run's", { job: name, run: id });
      if (run) this.#end(run, { outcome: 'stopped' });
      return;
    }
    // Foreground: the Job goes once its pod has; the run then reports `stopped` (#check). The uid: only the Job
    // checked above, not one created again under its name meanwhile.
    const preconditions = { uid: job?.metadata?.uid };
    const deleted = job ? await this.#jobClient.delete(this.#settings.namespace, name, { propagationPolicy: 'Foreground', preconditions }) : false;
    if (!deleted && run) this.#end(run, { outcome: 'stopped' });
  }

  /** Stops watching and following; runs still going are left to their Jobs. */
  close(): void {
    this.#jobs.stop();
    this.#pods.stop();
    for (const run of this.#runs.values()) void run.following?.follow.then((follow) => follow?.stop());
    this.#runs.clear();
  }

  async #start(): Promise<void> {
    if (!this.#started) {
      this.#started = true;
      this.#jobs.start();
      this.#pods.start();
    }
    await Promise.all([this.#jobs.waitForSync(), this.#pods.waitForSync()]);
  }

  #key(name: string): string {
    return `${this.#settings.namespace}/${name}`;
  }

  /** The newest pod of the Job (one, with backoffLimit 0, unless someone deleted it and the Job made another). */
  #podOf(name: string): BuildPod | undefined {
    return this.#pods
      .list()
      .filter((pod) => pod.metadata?.labels?.[JOB_NAME_LABEL] === name)
      .sort((a, b) => (a.metadata?.creationTimestamp ?? '').localeCompare(b.metadata?.creationTimestamp ?? ''))
      .at(-1);
  }

  /** Re-reads the run's Job and pod from the caches and moves the run on: its log, its end. */
  #check(name: string): void {
    const run = this.#runs.get(name);
    if (!run || run.ending) return;
    const job = this.#jobs.get(this.#key(name));
    if (!job) {
      if (run.stopping) this.#end(run, { outcome: 'stopped' });
      else if (run.seen) this.#end(run, { outcome: 'failed', reason: 'RunnerFailed', message: "the build's Job was deleted" });
      return;
    }
    const foreign = foreignJob(job, run.spec);
    if (foreign) {
      // Never followed, stopped or deleted: its build goes on; this one fails.
      this.#end(run, { outcome: 'failed', reason: 'RunnerFailed', message: foreign });
      return;
    }
    run.seen = true;
    if (run.stopping) return;
    const pod = this.#podOf(name) ?? run.pod;
    if (pod) run.pod = pod;
    if (pod && containerStarted(pod) && run.following?.podUid !== pod.metadata?.uid) this.#follow(run, pod);
    const result = runOutcome(job, pod, run.spec.limits, run.tail);
    if (!result) return;
    this.#end(run, result);
    // A run that cannot start does not wait for its deadline: its Job goes now.
    if (!job.status?.conditions?.some((c) => (c.type === 'Failed' || c.type === 'FailureTarget') && c.status === 'True') && result.outcome === 'failed') {
      this.#jobClient
        .delete(this.#settings.namespace, name, { propagationPolicy: 'Background' })
        .catch((err: unknown) => this.#log.warn('cannot delete a build Job that could not start', { job: name, err }));
    }
  }

  #follow(run: Run, pod: BuildPod, sinceTime?: string): void {
    const podUid = pod.metadata?.uid ?? '';
    const target = { namespace: this.#settings.namespace, pod: pod.metadata?.name ?? '', container: BUILD_CONTAINER, sinceTime };
    const follow = followPodLog(this.#conn, target, (text) => {
      run.lastLogAt = new Date();
      run.tail = (run.tail + text).slice(-TAIL_BYTES);
      const kept = run.budget.take(text);
      if (kept) run.events.log(kept);
      // The log is full: the connection closes (and is not opened again); the end is read from the Job and pod.
      if (run.budget.spent) void follow.then((followed) => followed?.stop());
    }).catch((err: unknown) => {
      this.#log.warn('cannot follow a build log', { job: run.name, err });
      return undefined;
    });
    run.following = { podUid, follow };
    void follow
      .then((followed) => followed?.done.then(() => true))
      .then(
        (ended) =>
          ended &&
          // The connection ended while the container ran on (the transport's idle timeout, an apiserver restart):
          // followed again from the last chunk's second (a line or two may come twice), unless the pod shows it
          // had ended by then (the log of an exited container ends before the pod's status says so).
          void setTimeout(() => {
            const now = this.#podOf(run.name);
            if (this.#runs.get(run.name) !== run || run.ending || run.budget.spent || now?.metadata?.uid !== podUid || !containerState(now)?.running) return;
            this.#follow(run, now, (run.lastLogAt ?? new Date()).toISOString().replace(/\.\d+Z$/, 'Z'));
          }, REFOLLOW_DELAY_MS),
      )
      .catch((err: unknown) => this.#log.warn('cannot follow a build log again', { job: run.name, err }));
  }

  /** Ends the run once: after the rest of its log (bounded), `finished` with `result`. */
  #end(run: Run, result: RunResult): void {
    if (run.ending) return;
    run.ending = true;
    // Never a rejection left unhandled (it would end the operator): a listener that throws is logged.
    void (async () => {
      const followed = await run.following?.follow;
      if (followed) {
        let timer: NodeJS.Timeout | undefined;
        await Promise.race([followed.done, new Promise((resolve) => (timer = setTimeout(resolve, LOG_DRAIN_MS)))]);
        clearTimeout(timer);
        followed.stop();
      }
      // The message may want the log's last lines that came meanwhile (when the pod had no termination message).
      const final = result.outcome === 'failed' && run.tail && !run.stopping ? this.#refine(run, result) : result;
      if (this.#runs.get(run.name) === run) this.#runs.delete(run.name);
      this.#log.info('build run ended', { job: run.name, outcome: final.outcome, ...(final.outcome === 'failed' ? { reason: final.reason } : {}) });
      run.events.finished(final);
    })().catch((err: unknown) => this.#log.error('a build run ended, but reporting it failed', { job: run.name, err }));
  }

  #refine(run: Run, result: RunResult): RunResult {
    const job = this.#jobs.get(this.#key(run.name));
    return (job && runOutcome(job, this.#podOf(run.name) ?? run.pod, run.spec.limits, run.tail)) ?? result;
  }
}
