import { Type, type Static } from 'typebox';
import { DnsLabel, Text, Timestamp } from './strings.ts';

// The deploy history of a RuntimeApp: the operator's RuntimeApp controller records every change of
// spec.activeBuildId, whoever made it (the API's deploy and rollback, push to deploy, kubectl), in
// status.history. Who made it comes from the annotations below, which the API and push to deploy write
// with the spec; kubectl leaves them as they were, so they count only when they name the build activated.

/** Activations kept per app. */
export const MAX_HISTORY = 20;

/** Who activated the build: `user:<id>` (the API's deploy and rollback) or `push:<repository>@<commit>` (push to deploy). */
export const DEPLOYED_BY_ANNOTATION = 'cloudwright.dev/deployed-by';
/** The build the deployed-by annotation is about: a later change of the spec by kubectl does not inherit it. */
export const DEPLOYED_BUILD_ANNOTATION = 'cloudwright.dev/deployed-build';

export const RolloutStepRecord = Type.Object(
  {
    weight: Type.Integer({ minimum: 0, maximum: 100, format: 'int32', description: 'Percent of traffic on the build from then on.' }),
    at: Timestamp({ description: 'When the rollout reached this weight.' }),
  },
  { additionalProperties: false },
);
export type RolloutStepRecord = Static<typeof RolloutStepRecord>;

export const Activation = Type.Object(
  {
    buildId: DnsLabel({ description: 'The build that became spec.activeBuildId.' }),
    activatedAt: Timestamp({ description: 'When the operator saw the spec name it.' }),
    servedAt: Type.Optional(Timestamp({ description: 'When every live runtime replica first served it to all traffic (for a rollout: when the rollout succeeded).' })),
    rollback: Type.Optional(Type.Boolean({ description: 'The build had been active before (a rollback).' })),
    by: Type.Optional(Text({ maxLength: 256, description: 'Who activated it: user:<id> or push:<repository>@<commit>; absent for a change made another way (kubectl).' })),
    commit: Type.Optional(Text({ maxLength: 64, description: 'The commit it was built from, for push to deploy.' })),
    steps: Type.Optional(Type.Array(RolloutStepRecord, { maxItems: 12, description: 'The weights its rollout went through, in order.' })),
    abortedAt: Type.Optional(Timestamp({ description: 'When its rollout was aborted (all traffic back to the stable build).' })),
  },
  { additionalProperties: false },
);
export type Activation = Static<typeof Activation>;
