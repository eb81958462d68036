import { randomBytes } from 'node:crypto';
import { isDeepStrictEqual } from 'node:util';
import type { Build } from '../../src/apis/v1alpha1/build.ts';
import { ROLLOUT_ABORT_ANNOTATION, ROLLOUT_PROMOTE_ANNOTATION, ROLLOUT_RETRY_ANNOTATION, type RolloutPhase, type RolloutPolicy, type RolloutStatus } from '../../src/apis/v1alpha1/rollout.ts';
import type { RuntimeApp } from '../../src/apis/v1alpha1/runtime-app.ts';
import { ConflictError, NotFoundError } from '../../src/errors.ts';
import { waitForAnswer, type Informer, type InformerFactory, type KubeConnection } from '../../src/kube/index.ts';
import { AppStore } from '../../src/platform/app-store.ts';
import { CONTROLLER_ANSWER_MS } from '../../src/platform/domains/controller-answer.ts';
import { BUILDS, RUNTIME_APPS } from '../../src/platform/resources.ts';
import { policyView, statusView, type RolloutBody, type RolloutStatusView } from './rollout-policy.ts';

/** What a caller can ask of a rollout under way (or of an aborted one): each an annotation the operator echoes. */
export type RolloutRequest = 'promote' | 'abort' | 'retry';

export interface RolloutView {
  policy?: RolloutBody;
  status?: RolloutStatusView;
}

interface RequestKind {
  readonly annotation: string;
  /** The phases the request means something in. */
  readonly phases: readonly RolloutPhase[];
  readonly handled: (status: RolloutStatus) => string | undefined;
  readonly nothing: string;
}

const REQUESTS: Record<RolloutRequest, RequestKind> = {
  promote: {
    annotation: ROLLOUT_PROMOTE_ANNOTATION,
    phases: ['Progressing', 'Paused'],
    handled: (s) => s.lastHandledPromote,
    nothing: 'there is nothing to promote: no rollout is under way',
  },
  abort: {
    annotation: ROLLOUT_ABORT_ANNOTATION,
    phases: ['Progressing', 'Paused'],
    handled: (s) => s.lastHandledAbort,
    nothing: 'there is nothing to abort: no rollout is under way',
  },
  retry: {
    annotation: ROLLOUT_RETRY_ANNOTATION,
    phases: ['Aborted'],
    handled: (s) => s.lastHandledRetry,
    nothing: 'there is nothing to retry: only an aborted rollout can be retried',
  },
};

/**
 * An app's rollout policy (`spec.rollout`) and the requests to its rollout under way (docs/rollouts.md). The
 * API writes intent only: the policy, or a request annotation with a fresh value, then waits (watching, at
 * most `answerWithinMs`) for the operator to echo the request in `status.rollout`.
 */
export class AppRollouts {
  readonly #store: AppStore;
  readonly #apps: Informer<RuntimeApp>;
  readonly #answerWithinMs: number;

  constructor(store: AppStore, apps: Informer<RuntimeApp>, options: { answerWithinMs?: number | undefined } = {}) {
    this.#store = store;
    this.#apps = apps;
    this.#answerWithinMs = options.answerWithinMs ?? CONTROLLER_ANSWER_MS;
  }

  /** @throws NotFoundError when there is no such app, or it has no rollout policy */
  get(project: string, appId: string): RolloutView {
    const app = this.#store.cached(project, appId);
    if (!app.spec.rollout) throw noPolicy(appId);
    return rolloutView(app);
  }

  /** Sets the policy; `created` when the app had none. */
  async put(project: string, appId: string, policy: RolloutPolicy): Promise<{ view: RolloutView; created: boolean }> {
    let created = false;
    const written = await this.#store.update(project, appId, (app) => {
      created = app.spec.rollout === undefined;
      return isDeepStrictEqual(app.spec.rollout, policy) ? undefined : { ...app.spec, rollout: policy };
    });
    return { view: rolloutView(written), created };
  }

  /** Removes the policy: later changes switch at once, and so does a rollout under way. @throws NotFoundError when there is none */
  async delete(project: string, appId: string): Promise<void> {
    await this.#store.update(project, appId, (app) => {
      if (!app.spec.rollout) throw noPolicy(appId);
      const { rollout: _removed, ...spec } = app.spec;
      return spec;
    });
  }

  /**
   * Writes the request's annotation with a fresh value and waits for the operator's echo; `answered` false when
   * it had not echoed within the bound (the request stands; the operator handles it when it can).
   * @throws ConflictError when the rollout is in no phase the request applies to
   */
  async request(project: string, appId: string, request: RolloutRequest): Promise<{ answered: boolean; view: RolloutView }> {
    const kind = REQUESTS[request];
    const value = `${new Date().toISOString()}-${randomBytes(4).toString('hex')}`;
    const written = await this.#store.updateObject(project, appId, (app) => {
      const phase = app.status?.rollout?.phase;
      if (!phase || !kind.phases.includes(phase)) throw new ConflictError(`App ${appId}: ${kind.nothing}${phase ? ` (the latest rollout is ${phase})` : ''}.`);
      return { ...app, metadata: { ...app.metadata, annotations: { ...app.metadata?.annotations, [kind.annotation]: value } } };
    });
    const answered = await waitForAnswer(this.#apps, written, (a) => a.status?.rollout !== undefined && kind.handled(a.status.rollout) === value, this.#answerWithinMs);
    const handled = answered.status?.rollout !== undefined && kind.handled(answered.status.rollout) === value;
    return { answered: handled, view: rolloutView(answered) };
  }
}

/** The rollout services on the shared RuntimeApp and Build caches; call before `informers.start()`. */
export function createAppRollouts(conn: KubeConnection, informers: InformerFactory, options: { answerWithinMs?: number | undefined } = {}): AppRollouts {
  const apps = informers.informer<RuntimeApp>(RUNTIME_APPS);
  return new AppRollouts(new AppStore(conn, apps, informers.informer<Build>(BUILDS)), apps, options);
}

export function rolloutView(app: RuntimeApp): RolloutView {
  const policy = app.spec.rollout;
  const status = app.status?.rollout;
  return {
    ...(policy ? { policy: policyView(policy) } : {}),
    ...(status ? { status: statusView(status, policy?.steps.length ?? 0) } : {}),
  };
}

function noPolicy(appId: string): NotFoundError {
  return new NotFoundError(`App ${appId} has no rollout policy: its deploys switch all traffic at once. Set one with PUT …/apps/${appId}/rollout.`);
}
