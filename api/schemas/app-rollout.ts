import { Type } from 'typebox';
import { MAX_ROLLOUT_STEPS, RolloutAffinity, RolloutAnalysis, RolloutDuration, type RolloutPhase } from '../../src/apis/v1alpha1/rollout.ts';

// The rollout policy in the API's words (snake_case, a pause as one string). The bounds are the kind's own
// (src/apis/v1alpha1/rollout.ts), so what the API takes the apiserver takes; the rules a JSON schema cannot
// say (increasing weights, a threshold, one affinity) are checked by services/rollout-policy.ts.

/** RolloutDuration's pattern without its anchors (rollout-policy.test.ts holds them equal). */
export const DURATION = '([0-9]{1,5}h)?([0-9]{1,5}m)?([0-9]{1,5}s)?';

/** A duration, or `manual`: the step waits for a promote. */
const Pause = Type.String({
  minLength: 2,
  maxLength: 16,
  pattern: `^(manual|${DURATION})$`,
  description: 'How long the step holds: a duration such as 30s, 5m or 1h30m, or `manual` (until a promote). Absent: the step moves on at once (once its analysis passed, with analysis).',
});

const Step = Type.Object(
  {
    weight: Type.Integer({ minimum: 0, maximum: 100, description: 'Percent of requests (and of affinity keys) the new build gets at this step.' }),
    pause: Type.Optional(Pause),
  },
  { additionalProperties: false },
);

const OnFailure = Type.Unsafe<'abort' | 'pause'>({
  type: 'string',
  enum: ['abort', 'pause'],
  description: 'What a failed analysis does: abort (the default: all traffic back to the stable build) or pause (wait for a promote or an abort).',
});

const Affinity = Type.Object(
  {
    cookie: Type.Optional(RolloutAffinity.properties.cookie),
    header: Type.Optional(RolloutAffinity.properties.header),
  },
  { additionalProperties: false, description: 'What keeps a user on one build as the weight rises: `cookie` or `header`, one of the two. Absent: the cookie `cw-rollout`.' },
);

const Analysis = Type.Object(
  {
    interval: Type.Optional(Type.With(RolloutDuration, { description: 'How often the new build is judged (default 1m).' })),
    min_requests: RolloutAnalysis.properties.minRequests,
    max_error_percent: Type.Optional(RolloutAnalysis.properties.maxErrorPercent),
    max_percent_above_stable: Type.Optional(RolloutAnalysis.properties.maxPercentAboveStable),
    failure_limit: Type.Optional(RolloutAnalysis.properties.failureLimit),
  },
  {
    additionalProperties: false,
    description: 'Judges the new build every interval from the runtime’s counts of requests and errors (5xx answers and uncaught exceptions); needs max_error_percent or max_percent_above_stable.',
  },
);

export const RolloutBody = Type.Object(
  {
    steps: Type.Array(Step, {
      minItems: 1,
      maxItems: MAX_ROLLOUT_STEPS,
      description: `Weights in increasing order, at most ${MAX_ROLLOUT_STEPS} steps; after the last step the new build takes all traffic.`,
    }),
    affinity: Type.Optional(Affinity),
    analysis: Type.Optional(Analysis),
    on_failure: Type.Optional(OnFailure),
  },
  { additionalProperties: false, description: 'The rollout policy; PUT replaces it whole.' },
);

// Response schemas avoid `anyOf` (see project.ts): optional fields are simply absent.

const Phase = Type.Unsafe<RolloutPhase>({
  type: 'string',
  enum: ['Progressing', 'Paused', 'Succeeded', 'Aborted'],
  description: 'Progressing: stepping; Paused: waiting for a promote (or for a pause to end); Succeeded: the new build serves all traffic; Aborted: the stable build does.',
});

const Counts = Type.Object({ requests: Type.Integer(), errors: Type.Integer() }, { description: 'Requests and errors (5xx answers and uncaught exceptions) one build answered.' });

export const RolloutStatusView = Type.Object(
  {
    phase: Phase,
    step: Type.Integer({ description: 'Index of the current step (0-based); equals `steps` once all traffic is on the new build.' }),
    steps: Type.Integer({ description: 'Steps of the policy.' }),
    weight: Type.Integer({ description: 'Percent of traffic the new build gets now.' }),
    stable_build_id: Type.String({ description: 'The build served before the rollout (all traffic goes back to it on an abort).' }),
    canary_build_id: Type.Optional(Type.String({ description: 'The new build.' })),
    step_started_at: Type.Optional(
      Type.String({ format: 'date-time', description: 'When every runtime replica first applied the current step’s weight (its pause counts from here); absent until then.' }),
    ),
    analysis: Type.Optional(
      Type.Object(
        {
          stable: Counts,
          canary: Counts,
          failures: Type.Integer({ description: 'Failed intervals so far in this rollout.' }),
          checked_at: Type.String({ format: 'date-time', description: 'When the last interval was judged.' }),
        },
        { description: 'The last judged interval’s counts per build.' },
      ),
    ),
    message: Type.Optional(Type.String({ description: 'Why the rollout is where it is (a failed analysis, a wait for a promote).' })),
    last_handled_promote: Type.Optional(Type.String({ description: 'The promote request the operator last handled.' })),
    last_handled_abort: Type.Optional(Type.String({ description: 'The abort request the operator last handled.' })),
    last_handled_retry: Type.Optional(Type.String({ description: 'The retry request the operator last handled.' })),
  },
  { description: 'The latest rollout as the operator reports it.' },
);

export const RolloutView = Type.Object(
  {
    policy: Type.Optional(Type.With(RolloutBody, { description: 'The policy; absent once removed (a rollout under way then switches at once).' })),
    status: Type.Optional(RolloutStatusView),
  },
  { description: 'An app’s rollout policy and its latest rollout.' },
);

/** The compact summary the app view carries during and after a rollout. */
export const RolloutSummary = Type.Object(
  {
    phase: Phase,
    weight: Type.Integer({ description: 'Percent of traffic on the new build.' }),
    canary_build_id: Type.String({ description: 'The new build.' }),
  },
  { description: 'The app’s latest rollout (`…/rollout` has the details).' },
);
