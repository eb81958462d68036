// What a runtime replica serves of an app with a rollout policy, or whose build waits for its migrations, read
// from the RuntimeApp alone (its spec and the operator's status.rollout, status.migrations and status.served), so
// every replica, restarted or new, serves the same. Pure.
import { createHash } from 'node:crypto';
import type { RuntimeApp, RuntimeAppSpec } from '../apis/v1alpha1/runtime-app.ts';
import { DEFAULT_ROLLOUT_COOKIE, type RolloutRelease } from '../apis/v1alpha1/rollout.ts';

/** The key of a request's affinity: a cookie the runtime sets, or a header the client sends. */
export type Affinity = { readonly cookie: string } | { readonly header: string };

/**
 * What to serve: the spec as it is, one recorded release, the stable release and the spec's split by weight, or
 * nothing yet (`held`: the spec's build waits for its migrations and no release was served before).
 */
export type ServingPlan =
  | { readonly kind: 'spec' }
  | { readonly kind: 'held' }
  | { readonly kind: 'single'; readonly release: RolloutRelease }
  | { readonly kind: 'split'; readonly stable: RolloutRelease; readonly canary: RolloutRelease; readonly weight: number; readonly affinity: Affinity };

const sorted = <T>(map: Readonly<Record<string, T>> | undefined): Array<[string, T]> => Object.entries(map ?? {}).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));

/** The spec's release: its build and environment (plain and database variables), with their digest. */
export function releaseOf(spec: RuntimeAppSpec): RolloutRelease | undefined {
  const buildId = spec.activeBuildId;
  if (!buildId) return undefined;
  const environment = spec.environment && Object.keys(spec.environment).length > 0 ? spec.environment : undefined;
  const databaseEnvironment = spec.databaseEnvironment && Object.keys(spec.databaseEnvironment).length > 0 ? spec.databaseEnvironment : undefined;
  const digest = createHash('sha256')
    .update(JSON.stringify([buildId, sorted(environment), sorted(databaseEnvironment).map(([k, v]) => [k, v.database, v.access ?? 'read-only', ...(v.provides === 'url' ? ['url'] : [])])]))
    .digest('hex');
  return { release: digest, buildId, ...(environment ? { environment: { ...environment } } : {}), ...(databaseEnvironment ? { databaseEnvironment: { ...databaseEnvironment } } : {}) };
}

/** The policy's affinity, with the default cookie. */
export function affinityOf(app: RuntimeApp): Affinity {
  const a = app.spec.rollout?.affinity;
  return a?.header ? { header: a.header.toLowerCase() } : { cookie: a?.cookie ?? DEFAULT_ROLLOUT_COOKIE };
}

/**
 * What the replicas serve of `app`:
 * - a build whose migrations are not applied yet (`migrationsPending`): what served before (the rollout's stable
 *   release, else `status.served`), or nothing when nothing did;
 * - no policy, or no rollout recorded yet: the spec, at once (as without rollouts);
 * - Progressing or Paused with the spec as the new release: the stable release and the spec, split at the weight;
 * - otherwise the release the status names (the stable one), until the operator has caught up with a changed
 *   spec (a new rollout) or the spec is that release again (a rollback, a finished rollout).
 */
export function servingPlan(app: RuntimeApp): ServingPlan {
  const rollout = app.status?.rollout;
  const spec = releaseOf(app.spec);
  if (spec && migrationsPending(app)) {
    // The new build takes no traffic: what served before keeps serving (a rollout's stable release first).
    if (app.spec.rollout && rollout && rollout.stable.release !== spec.release) return { kind: 'single', release: rollout.stable };
    const served = app.status?.served;
    return served && served.release !== spec.release ? { kind: 'single', release: served } : { kind: 'held' };
  }
  if (!app.spec.rollout || !rollout || !spec) return { kind: 'spec' };
  if (spec.release === rollout.stable.release) return { kind: 'spec' };
  if ((rollout.phase === 'Progressing' || rollout.phase === 'Paused') && rollout.canary?.release === spec.release) {
    return { kind: 'split', stable: rollout.stable, canary: spec, weight: rollout.weight, affinity: affinityOf(app) };
  }
  return { kind: 'single', release: rollout.stable };
}

/**
 * Whether the spec's active build carries migrations (`spec.migrations`, written with it) that the operator has
 * not recorded as applied in `status.migrations`: such a build is held back. An app without migrations never is.
 */
export function migrationsPending(app: RuntimeApp): boolean {
  const wanted = app.spec.migrations;
  if (!wanted || wanted.buildId !== app.spec.activeBuildId) return false;
  const done = app.status?.migrations;
  return !(done?.phase === 'Applied' && done.buildId === wanted.buildId && done.checksum === wanted.checksum && done.database === wanted.database);
}

/**
 * Whether an affinity key goes to the new release at `weight` percent: its hash's place in 0–9999 is below
 * the weight in hundredths, so a key on the new release stays there as the weight rises. `keyHash`,
 * the same in the dispatcher (`dispatcher.js`), where it runs per request.
 */
export function keyOnCanary(key: string, weight: number): boolean {
  return keyHash(key) % 10_000 < weight * 100;
}

/** FNV-1a over the UTF-16 code units, then murmur3's finaliser, so keys that differ in one character spread evenly. */
export function keyHash(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}
