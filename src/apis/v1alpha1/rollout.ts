import { Type, type Static } from 'typebox';
import { MapOf } from './map-of.ts';
import { DnsLabel, Timestamp } from './strings.ts';

// Gradual rollouts of a RuntimeApp (docs/rollouts.md): what `spec.rollout` declares and what the operator
// reports in `status.rollout`. The operator's RuntimeApp controller is the only writer of the status; the
// runtime replicas read it to split traffic and report the counts per build that the analysis sums.

/** The longest rollout: ten steps. */
export const MAX_ROLLOUT_STEPS = 10;

/** A duration as `30s`, `5m`, `1h30m` (hours, minutes, seconds). */
export const RolloutDuration = Type.String({
  minLength: 2,
  maxLength: 16,
  pattern: '^([0-9]{1,5}h)?([0-9]{1,5}m)?([0-9]{1,5}s)?$',
  description: 'A duration such as 30s, 5m or 1h30m.',
});

export const RolloutStep = Type.Object(
  {
    weight: Type.Integer({ minimum: 0, maximum: 100, format: 'int32', description: 'Percent of requests (and of affinity keys) the new build gets at this step.' }),
    pause: Type.Optional(
      Type.Object(
        {
          duration: Type.Optional(RolloutDuration),
        },
        {
          additionalProperties: false,
          description: 'Hold this step for `duration`, or, without one, until a promote. Absent: move on once the step has passed its analysis (at once without analysis).',
        },
      ),
    ),
  },
  { additionalProperties: false },
);
export type RolloutStep = Static<typeof RolloutStep>;

/** Which request value keeps a user on one build: a cookie the runtime sets, or a header the app's clients or a CDN send. */
export const RolloutAffinity = Type.Object(
  {
    cookie: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 64,
        pattern: "^[!#$%&'*+.^_`|~0-9A-Za-z-]+$",
        description: 'Cookie holding a random key, set by the runtime on the first answer during a rollout (default `cw-rollout`).',
      }),
    ),
    header: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 64,
        pattern: "^[!#$%&'*+.^_`|~0-9A-Za-z-]+$",
        description: 'Request header whose value is the key (a user id set by the app’s client, or a CDN’s); requests without it are split at random.',
      }),
    ),
  },
  {
    additionalProperties: false,
    description: 'What keeps a user on one build as the weight rises. Absent: the cookie `cw-rollout`.',
    'x-kubernetes-validations': [{ rule: '!(has(self.cookie) && has(self.header))', message: 'affinity is a cookie or a header, not both' }],
  },
);
export type RolloutAffinity = Static<typeof RolloutAffinity>;

export const RolloutAnalysis = Type.Object(
  {
    interval: Type.Optional(RolloutDuration),
    minRequests: Type.Integer({ minimum: 1, maximum: 1_000_000, format: 'int32', description: 'Requests the new build must have answered in an interval for it to be judged.' }),
    maxErrorPercent: Type.Optional(Type.Number({ minimum: 0, maximum: 100, description: 'Most 5xx answers and uncaught exceptions of the new build in an interval, in percent of its requests.' })),
    maxPercentAboveStable: Type.Optional(Type.Number({ minimum: 0, maximum: 100, description: 'Most the new build’s error percent may exceed the stable build’s in the same interval.' })),
    failureLimit: Type.Optional(Type.Integer({ minimum: 0, maximum: 100, format: 'int32', description: 'Failed intervals tolerated before the rollout fails (default 0).' })),
  },
  {
    additionalProperties: false,
    description: 'Judges the new build every interval (default 1m) from the runtime replicas’ counts; no metrics backend needed.',
    'x-kubernetes-validations': [{ rule: 'has(self.maxErrorPercent) || has(self.maxPercentAboveStable)', message: 'analysis needs maxErrorPercent or maxPercentAboveStable' }],
  },
);
export type RolloutAnalysis = Static<typeof RolloutAnalysis>;

export const RolloutPolicy = Type.Object(
  {
    steps: Type.Array(RolloutStep, {
      minItems: 1,
      maxItems: MAX_ROLLOUT_STEPS,
      description: 'Weights in increasing order; after the last step the new build takes all traffic.',
      'x-kubernetes-validations': [
        { rule: 'self.map(s, s.weight).isSorted() && self.all(s, self.map(t, t.weight).indexOf(s.weight) == self.map(t, t.weight).lastIndexOf(s.weight))', message: 'step weights must increase' },
      ],
    }),
    affinity: Type.Optional(RolloutAffinity),
    analysis: Type.Optional(RolloutAnalysis),
    onFailure: Type.Optional(
      Type.Union([Type.Literal('Abort'), Type.Literal('Pause')], {
        description: 'What a failed analysis does: Abort (default: all traffic back to the stable build) or Pause (wait for a promote or abort).',
      }),
    ),
  },
  {
    additionalProperties: false,
    description:
      'Roll a change of the active build or environment out in steps instead of at once (docs/rollouts.md). A deploy, rollback, push or apply that changes them starts a rollout from the release being served.',
  },
);
export type RolloutPolicy = Static<typeof RolloutPolicy>;

/** Requests and errors (5xx answers and uncaught exceptions) one build answered. */
export const RequestCounts = Type.Object(
  {
    requests: Type.Integer({ minimum: 0, format: 'int64' }),
    errors: Type.Integer({ minimum: 0, format: 'int64' }),
  },
  { additionalProperties: false },
);
export type RequestCounts = Static<typeof RequestCounts>;

/**
 * One release of the app: a build with an environment. The stable one is copied whole (a later spec no longer
 * holds it); the runtime replicas serve it from here.
 */
export const RolloutRelease = Type.Object(
  {
    release: Type.String({ maxLength: 64, description: 'Digest of the build id and the environment (plain and database variables).' }),
    buildId: DnsLabel({ description: 'Build.' }),
    environment: Type.Optional(MapOf(Type.String({ maxLength: 4096 }), { maxProperties: 128, description: 'Plain environment of the release.' })),
    databaseEnvironment: Type.Optional(
      MapOf(
        Type.Object(
          {
            database: DnsLabel({ description: 'Database.' }),
            access: Type.Optional(Type.Union([Type.Literal('full'), Type.Literal('read-only')])),
            provides: Type.Optional(Type.Union([Type.Literal('token'), Type.Literal('url')])),
          },
          { additionalProperties: false },
        ),
        {
          maxProperties: 32,
          description: 'Database variables of the release.',
        },
      ),
    ),
  },
  { additionalProperties: false },
);
export type RolloutRelease = Static<typeof RolloutRelease>;

export const RolloutPhase = Type.Union([Type.Literal('Progressing'), Type.Literal('Paused'), Type.Literal('Succeeded'), Type.Literal('Aborted')], {
  description: 'Progressing: stepping; Paused: waiting for a promote (or for a pause to end); Succeeded: the new release serves all traffic; Aborted: the stable release does.',
});
export type RolloutPhase = Static<typeof RolloutPhase>;

export const RolloutStatus = Type.Object(
  {
    phase: RolloutPhase,
    stable: RolloutRelease,
    /** Absent only before any rollout, when the operator recorded what is served as stable. */
    canary: Type.Optional(RolloutRelease),
    step: Type.Integer({ minimum: 0, format: 'int32', description: 'Index of the current step; the number of steps once all traffic is on the new release.' }),
    weight: Type.Integer({ minimum: 0, maximum: 100, format: 'int32', description: 'Percent of traffic the new release gets now.' }),
    stepStartedAt: Type.Optional(Timestamp({ description: 'When every runtime replica first applied the current step’s weight (its pause counts from here); absent until then.' })),
    analysis: Type.Optional(
      Type.Object(
        {
          stable: RequestCounts,
          canary: RequestCounts,
          /** The replicas' totals at the last judgement: the next interval's counts are taken from here. */
          baseline: Type.Object({ stable: RequestCounts, canary: RequestCounts }, { additionalProperties: false }),
          baselines: Type.Optional(
            MapOf(Type.Object({ stable: RequestCounts, canary: RequestCounts }, { additionalProperties: false }), {
              maxProperties: 256,
              keys: Type.String({ maxLength: 64 }),
              description: 'The same per run of a replica’s split (its reports’ `run`): each run’s next counts are taken from its own, so a replica restarting or leaving does not skew an interval.',
            }),
          ),
          failures: Type.Integer({ minimum: 0, format: 'int32' }),
          passes: Type.Optional(Type.Integer({ minimum: 0, format: 'int32', description: 'Passed intervals in the current step: a step with analysis moves on after one.' })),
          checkedAt: Timestamp({ description: 'When the last interval was judged.' }),
        },
        { additionalProperties: false, description: 'Counts of the last judged interval, per build, and failed intervals so far in this rollout.' },
      ),
    ),
    message: Type.Optional(Type.String({ maxLength: 1024 })),
    lastHandledPromote: Type.Optional(Type.String({ maxLength: 64, description: 'The promote request (annotation value) last handled.' })),
    lastHandledAbort: Type.Optional(Type.String({ maxLength: 64, description: 'The abort request last handled.' })),
    lastHandledRetry: Type.Optional(Type.String({ maxLength: 64, description: 'The retry request last handled.' })),
  },
  { additionalProperties: false, description: 'The rollout of the latest release (docs/rollouts.md).' },
);
export type RolloutStatus = Static<typeof RolloutStatus>;

/** Requests as annotations (any new value asks again), answered in `status.rollout.lastHandled*`: written by the API, `cw rollout` and kubectl alike. */
export const ROLLOUT_PROMOTE_ANNOTATION = 'cloudwright.dev/rollout-promote';
export const ROLLOUT_ABORT_ANNOTATION = 'cloudwright.dev/rollout-abort';
export const ROLLOUT_RETRY_ANNOTATION = 'cloudwright.dev/rollout-retry';

/** The request header naming a build of the current rollout (`stable`, `canary`, or a build id) to force it: smoke tests at 0 %. */
export const ROLLOUT_BUILD_HEADER = 'cw-rollout-build';
/** The affinity cookie when the policy names none. */
export const DEFAULT_ROLLOUT_COOKIE = 'cw-rollout';
/** The analysis interval when the policy names none. */
export const DEFAULT_ANALYSIS_INTERVAL = '1m';
