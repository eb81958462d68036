import type { RuntimeApp, RuntimeAppStatus } from '../../../src/apis/v1alpha1/runtime-app.ts';
import { removeCondition, setCondition, type ConditionStatus, type ConditionUpdate } from '../../../src/conditions/index.ts';
import { buildResourceName } from '../../../src/platform/artifact-keys.ts';
import { migrationsPending, releaseOf, servingPlan, type ServingPlan } from '../../../src/runtime-contract/releases.ts';
import { rolloutCondition } from './rollout/condition.ts';
import type { RuntimeAppReport } from './replica-reports.ts';

/** Reasons a RuntimeApp's conditions carry (CamelCase, stable: dashboards and alerts key on them). */
export const Reasons = {
  /** No `spec.activeBuildId` yet. */
  NoBuild: 'NoBuild',
  /** The controller runs without the runtime replicas' reports (tests of the status alone). */
  RuntimeNotConfigured: 'RuntimeNotConfigured',
  /** Every runtime replica serves the whole spec. */
  Serving: 'Serving',
  /** The runtime has not served this spec yet (or retries a transient failure). */
  RollingOut: 'RollingOut',
  /** No Build resource, or no artifact in the object store, for the active build. */
  BuildNotFound: 'BuildNotFound',
  /** The artifact is invalid or workerd refuses to load it; the message says why. */
  BuildFailed: 'BuildFailed',
  /** A runtime replica has no room for the build in its data directory (it retries). */
  InsufficientStorage: 'InsufficientStorage',
  /** The project's active builds would unpack to more than its quota on a runtime replica (it retries). */
  QuotaExceeded: 'QuotaExceeded',
  /** A `spec.databaseEnvironment` entry names no Database of the app's namespace (the runtime deploys the spec once it does). */
  DatabaseNotFound: 'DatabaseNotFound',
  /** A `spec.databaseEnvironment` entry names a Database whose app tokens are not there yet. */
  DatabaseNotReady: 'DatabaseNotReady',
  /** No runtime replica is live (none running, none starting, every lease expired) for longer than the grace (`replica-reports.ts`). */
  RuntimeUnavailable: 'RuntimeUnavailable',
  /** Served, but some replica quarantines the app: one of its requests ran past the CPU bound without yielding. */
  CPULimitExceeded: 'CPULimitExceeded',
  /** Served, but some replica quarantines the app: it ran its workerd shard out of memory. */
  MemoryLimitExceeded: 'MemoryLimitExceeded',
  /** HostnamesServed: every deploy host name of the spec is routed to the app. */
  AllHostnamesServed: 'AllHostnamesServed',
  /** HostnamesServed: some deploy host names are not routed to the app (another app asks for them too, or another project's domain holds them). */
  HostnamesRefused: 'HostnamesRefused',
  /** Ready: the rollout of the spec's release was aborted; the stable release serves all traffic (the message says why). */
  RolloutAborted: 'RolloutAborted',
  /** Ready and MigrationsApplied: a migration of the active build failed (rolled back); what served before keeps serving. */
  MigrationFailed: 'MigrationFailed',
  /** Ready and MigrationsApplied: the active build's migrations are not applied yet; the build takes no traffic until they are. */
  MigrationsPending: 'MigrationsPending',
  /** MigrationsApplied: every migration of the active build is recorded in its database. */
  MigrationsApplied: 'MigrationsApplied',
} as const;
export type Reason = (typeof Reasons)[keyof typeof Reasons];

/** What the controller learned about the runtime before computing the status. */
export type RuntimeObservation =
  | { readonly kind: 'not-configured' }
  | { readonly kind: 'unavailable' }
  /** Replicas are live (taking traffic or starting), but none has gone through its first list yet: none's reports count so far. */
  | { readonly kind: 'starting' }
  /** No replica is live, but the last one went less than the grace ago (one may be restarting): nothing to say yet. */
  | { readonly kind: 'waiting' }
  | {
      readonly kind: 'observed';
      /** One per live, ready runtime replica; `undefined` for a replica that has not acted on the app. */
      readonly replicas: ReadonlyArray<RuntimeAppReport | undefined>;
      /** Whether the Build resource of `spec.activeBuildId` exists. */
      readonly buildExists: boolean;
      /**
       * The hosts the app is served on as the operator decides them (`AssignedHosts`, the replicas' own rule),
       * default host first: what the status says rather than the hosts a replica reports. Absent: the reports'.
       */
      readonly hosts?: readonly string[];
    };

const NOT_CONFIGURED: RuntimeObservation = { kind: 'not-configured' };

/** What one replica's report means for the app's current generation. */
interface Assessment {
  readonly reason:
    | typeof Reasons.Serving
    | typeof Reasons.RollingOut
    | typeof Reasons.BuildNotFound
    | typeof Reasons.BuildFailed
    | typeof Reasons.InsufficientStorage
    | typeof Reasons.QuotaExceeded
    | typeof Reasons.DatabaseNotFound
    | typeof Reasons.DatabaseNotReady;
  readonly message: string;
  readonly report: RuntimeAppReport | undefined;
}

// Lower is worse: with several replicas the app is as deployed as its least deployed replica.
const SEVERITY: Record<Assessment['reason'], number> = {
  BuildFailed: 0,
  QuotaExceeded: 1,
  InsufficientStorage: 1,
  BuildNotFound: 1,
  DatabaseNotFound: 1,
  DatabaseNotReady: 1,
  RollingOut: 2,
  Serving: 3,
};

/** What a replica that serves what the plan asks serves (the spec; the stable release alone; or both, split at the weight); `undefined` if it does not. */
function appliesPlan(plan: ServingPlan, buildId: string, generation: number, report: RuntimeAppReport | undefined): string | undefined {
  if (!report) return undefined;
  const servedSpec = (report.servedGeneration ?? -1) >= generation;
  switch (plan.kind) {
    case 'spec':
      return report.servingBuildId === buildId && servedSpec ? `Build ${buildId} is served.` : undefined;
    case 'held':
      // Nothing to serve yet: a replica that acted on this generation serves nothing.
      return !report.servingBuildId && (report.observedGeneration ?? -1) >= generation ? 'Nothing is served until the build’s migrations are applied.' : undefined;
    case 'single': {
      // The spec's build is not served: the replica acted on this generation by serving the stable release alone.
      const applies = report.servingBuildId === plan.release.buildId && !report.rollout && !report.failure && (report.observedGeneration ?? -1) >= generation;
      return applies ? `Build ${plan.release.buildId} is served, the stable release of the rollout.` : undefined;
    }
    case 'split': {
      const applies = report.servingBuildId === plan.canary.buildId && servedSpec && report.rollout?.release === plan.canary.release && report.rollout.weight === plan.weight;
      return applies ? `Builds ${plan.stable.buildId} and ${plan.canary.buildId} are served, ${plan.weight} % of traffic on build ${plan.canary.buildId}.` : undefined;
    }
  }
}

function assess(plan: ServingPlan, specBuildId: string, generation: number, report: RuntimeAppReport | undefined): Assessment {
  const applied = appliesPlan(plan, specBuildId, generation, report);
  if (applied) return { reason: Reasons.Serving, message: applied, report };
  // While a release is held back, the plan's build is the one to load.
  const buildId = plan.kind === 'single' ? plan.release.buildId : specBuildId;
  const keeps = report?.servingBuildId ? ` The app keeps serving build ${report.servingBuildId}.` : '';
  const failure = report && (report.observedGeneration ?? -1) >= generation && report.failure?.buildId === buildId ? report.failure : undefined;
  if (failure?.reason === 'BuildFailed') return { reason: Reasons.BuildFailed, message: `Build ${buildId} cannot be served: ${failure.message}${keeps}`, report };
  if (failure?.reason === 'BuildNotFound') return { reason: Reasons.BuildNotFound, message: `The artifact of build ${buildId} is not in the object store.${keeps}`, report };
  // The replica's message names the figures (bytes, limits), which stay the same while nothing changes.
  if (failure?.reason === 'InsufficientStorage' || failure?.reason === 'QuotaExceeded') {
    return { reason: Reasons[failure.reason], message: `${failure.message} The runtime tries again as room comes.${keeps}`, report };
  }
  // The runtime's message names the variable and the Database (never a token); stable while nothing changes.
  if (failure?.reason === 'DatabaseNotFound' || failure?.reason === 'DatabaseNotReady') return { reason: Reasons[failure.reason], message: `${failure.message}${keeps}`, report };
  if (failure) return { reason: Reasons.RollingOut, message: `The runtime could not deploy build ${buildId} yet and is retrying.${keeps}`, report };
  // Between two steps: the replica splits for the new release at the previous weight.
  if (plan.kind === 'split' && report?.rollout?.release === plan.canary.release) return { reason: Reasons.RollingOut, message: `Moving to ${plan.weight} % of traffic on build ${buildId}.`, report };
  return { reason: Reasons.RollingOut, message: `Rolling out build ${buildId}.${keeps}`, report };
}

/** The status fields that describe what is served, taken from one replica's report (none: nothing served), with `hosts` when given. */
function servingFields(report: RuntimeAppReport | undefined, assigned?: readonly string[]): Pick<RuntimeAppStatus, 'servingBuildId' | 'hosts' | 'url'> {
  if (!report?.servingBuildId) return {};
  const hosts = assigned ?? report.hosts;
  return { servingBuildId: report.servingBuildId, ...(hosts.length > 0 ? { hosts: [...hosts] } : {}), ...(report.url ? { url: report.url } : {}) };
}

function conditions(deployed: { status: ConditionStatus; reason: Reason; message: string }, ready: string | { reason: Reason; message: string }): ConditionUpdate[] {
  return [
    { type: 'Deployed', ...deployed },
    typeof ready === 'string'
      ? { type: 'Ready', status: deployed.status === 'True' ? 'True' : 'False', reason: deployed.reason, message: ready }
      : { type: 'Ready', status: 'False', reason: ready.reason, message: ready.message },
  ];
}

/**
 * Ready's verdict when the app is served everywhere but some replicas quarantine it (they answer its
 * requests 503 for a back-off): the reason of the first by name of reason, and how many replicas. Stable
 * while the quarantines last (the replicas' messages name no time).
 */
function quarantined(reports: ReadonlyArray<RuntimeAppReport | undefined>): { reason: Reason; message: string } | undefined {
  const held = reports.flatMap((r) => (r?.quarantine ? [r.quarantine] : [])).sort((a, b) => (a.reason < b.reason ? -1 : a.reason > b.reason ? 1 : 0));
  const first = held[0];
  if (!first) return undefined;
  return {
    reason: first.reason === 'CPULimitExceeded' ? Reasons.CPULimitExceeded : Reasons.MemoryLimitExceeded,
    message: `${first.message} ${held.length} of ${reports.length} runtime replicas answer its requests with 503 until its back-off ends (it doubles with each offence).`,
  };
}

/** Ready's verdict while the spec asks for a release whose rollout was aborted: the stable release serves it all. */
function aborted(app: RuntimeApp): { reason: Reason; message: string } | undefined {
  const rollout = app.status?.rollout;
  if (rollout?.phase !== 'Aborted' || !app.spec.rollout || rollout.canary?.release !== releaseOf(app.spec)?.release) return undefined;
  return { reason: Reasons.RolloutAborted, message: rollout.message ?? 'The rollout of the active release was aborted.' };
}

/** Ready's verdict while the active build waits for its migrations or one failed: the build takes no traffic. */
function migrationsHeld(app: RuntimeApp): { reason: Reason; message: string } | undefined {
  const m = app.status?.migrations;
  if (!migrationsPending(app) || !m) return undefined;
  const served = app.status?.served;
  const keeps = served && served.buildId !== app.spec.activeBuildId ? ` Build ${served.buildId} keeps serving.` : ' Nothing is served until then.';
  if (m.phase === 'Failed' && m.failed) {
    const at = m.failed.statement ? ` at statement \`${m.failed.statement}\`` : '';
    return { reason: Reasons.MigrationFailed, message: `Migration ${m.failed.file} of build ${m.buildId} failed${at}: ${m.failed.message}. It was rolled back; deploy a fixed build.${keeps}` };
  }
  return { reason: Reasons.MigrationsPending, message: `The migrations of build ${m.buildId} are not applied yet${m.message ? `: ${m.message}` : '.'}${keeps}` };
}

/** MigrationsApplied, for an active build with migrations; none otherwise. */
function migrationsCondition(app: RuntimeApp): ConditionUpdate | undefined {
  const m = app.status?.migrations;
  if (!m) return undefined;
  const held = migrationsHeld(app);
  if (held) return { type: 'MigrationsApplied', status: 'False', ...held };
  const applied = m.applied?.length ? `applied ${m.applied.join(', ')}` : 'nothing was pending';
  return { type: 'MigrationsApplied', status: 'True', reason: Reasons.MigrationsApplied, message: `The migrations of build ${m.buildId} are applied to database ${m.database} (${applied}).` };
}

/**
 * The HostnamesServed condition once the spec is served: which of its deploy host names are not among its hosts
 * (as the operator decides them, by the rule the replicas route by). The runtime gives a name several apps ask for to none of them, and a name in
 * another project's domain to no app of this one; a kubectl user learns it here, as an API caller does from the
 * deploy's 409. Nothing to say for a spec without deploy host names.
 */
function hostnamesCondition(app: RuntimeApp, hosts: readonly string[]): ConditionUpdate | undefined {
  const asked = app.spec.hostnames ?? [];
  if (asked.length === 0) return undefined;
  const served = new Set(hosts);
  const refused = asked.filter((host) => !served.has(host));
  if (refused.length === 0) return { type: 'HostnamesServed', status: 'True', reason: Reasons.AllHostnamesServed, message: `Every deploy host name is served: ${asked.join(', ')}.` };
  return {
    type: 'HostnamesServed',
    status: 'False',
    reason: Reasons.HostnamesRefused,
    message: `Not served: ${refused.join(', ')}. Another app asks for the same name (a name several apps ask for goes to none of them), or another project's domain holds it; the app is served on its other hosts.`,
  };
}

/**
 * What the status of `app` should say, given what the controller observed of the runtime. Pure, so the
 * table of cases is tested without a cluster; the reconciler only diffs and writes.
 *
 * `Deployed` is True when every live, ready runtime replica serves the whole current spec (its build with
 * its environment, host names and limit: the replica reports the generation it serves), or, with a rollout,
 * what `servingPlan` asks from status.rollout (the split at its weight, or the stable release alone). `Ready`
 * summarises it, but says RolloutAborted while the spec asks for a release whose rollout was aborted.
 * RolloutProgressing follows status.rollout, which the controller computes first (`rollout/machine.ts`). `servingBuildId`, `hosts` and `url` say what the least converged replica serves (kept as they were
 * while no replica runs). How many replicas serve the app is said only while they disagree (a RollingOut
 * message), never counted in a field: a replica coming or going would otherwise rewrite every app's status
 * (docs/scale.md). Nothing here asks for a later look: every input that changes (a replica's report, the set of
 * replicas, a Build) is watched.
 */
export function desiredStatus(app: RuntimeApp, now: Date, observation: RuntimeObservation = NOT_CONFIGURED): RuntimeAppStatus {
  const generation = app.metadata?.generation;
  const buildId = app.spec.activeBuildId;
  const { servingBuildId, hosts, url, ...rest } = app.status ?? {};
  const unchanged = { servingBuildId, hosts, url };
  const deployed = app.status?.conditions?.find((c) => c.type === 'Deployed');
  /** Every ready replica was serving the current spec when the status was last written. */
  const servedAlready = deployed?.status === 'True' && deployed.observedGeneration === generation;
  let fields: Pick<RuntimeAppStatus, 'servingBuildId' | 'hosts' | 'url'> = {};
  let updates: ConditionUpdate[];
  if (!buildId) {
    updates = conditions(
      { status: 'False', reason: Reasons.NoBuild, message: 'No build has been deployed yet.' },
      'No build has been deployed yet: upload one with POST /v1/projects/{projectId}/apps/{appId}/deployments.',
    );
  } else if (observation.kind === 'not-configured') {
    fields = unchanged;
    updates = conditions(
      { status: 'False', reason: Reasons.RuntimeNotConfigured, message: `Build ${buildId} is selected, but no runtime engine is configured to serve it.` },
      'The app is not served: no runtime engine is configured.',
    );
  } else if (observation.kind === 'waiting') {
    // What the status said of this spec stands, RuntimeUnavailable included: a replica's restart within the grace
    // writes nothing, nor does a restart of the operator while the runtime is down. Of a newer spec nothing is known.
    fields = unchanged;
    updates =
      deployed?.observedGeneration === generation
        ? []
        : conditions(
            { status: 'False', reason: Reasons.RollingOut, message: `Whether build ${buildId} is served is not known yet: no runtime replica is running.` },
            'No runtime replica is running; the app is served once one is.',
          );
  } else if (observation.kind === 'unavailable') {
    fields = unchanged;
    updates = [
      { type: 'Deployed', status: 'Unknown', reason: Reasons.RuntimeUnavailable, message: `Whether build ${buildId} is served is unknown: no runtime replica is running.` },
      { type: 'Ready', status: 'False', reason: Reasons.RuntimeUnavailable, message: 'No runtime replica is running.' },
    ];
  } else if (observation.kind === 'starting' || (servedAlready && observation.replicas.length > 0 && observation.replicas.every((r) => r === undefined))) {
    // A replica serves an app of its first list when a request asks for it: what the status said of this spec
    // stands. Of a newer spec (or while it said no replica runs) nothing is known until a replica's reports count.
    // So too while ready replicas serve a spec already served and none's report has reached the operator yet
    // (`reporting` below).
    fields = unchanged;
    updates =
      deployed && deployed.observedGeneration === generation && deployed.reason !== Reasons.RuntimeUnavailable
        ? []
        : conditions(
            { status: 'False', reason: Reasons.RollingOut, message: `Whether build ${buildId} is served is not known yet: the runtime replicas are going through their first list of apps.` },
            'The runtime replicas are starting; the app is served when a request asks for it.',
          );
  } else {
    // A ready replica's report comes on another watch than its RuntimeReplica, so the operator may see it ready
    // before it sees what it reported. It takes nothing from a spec already served (it serves the app when a
    // request asks): it counts once its report arrives. Of a spec not served yet, it is one not acted on.
    const reporting = servedAlready ? observation.replicas.filter((r) => r !== undefined) : observation.replicas;
    const replicas = reporting.length > 0 ? reporting : [undefined];
    const plan = servingPlan(app);
    const assessments = replicas.map((report) => assess(plan, buildId, generation ?? 0, report));
    let worst = assessments[0] as Assessment;
    for (const next of assessments.slice(1)) if (SEVERITY[next.reason] < SEVERITY[worst.reason]) worst = next;
    const serving = reporting.length === 0 ? 0 : assessments.filter((a) => a.reason === Reasons.Serving).length;
    if (worst.reason !== Reasons.Serving && !observation.buildExists) {
      const keeps = worst.report?.servingBuildId ? ` The app keeps serving build ${worst.report.servingBuildId}.` : '';
      const name = buildResourceName(app.metadata?.name ?? '', buildId);
      worst = { reason: Reasons.BuildNotFound, message: `Build ${buildId} does not exist: there is no Build ${name} in namespace ${app.metadata?.namespace ?? ''}.${keeps}`, report: worst.report };
    }
    if (worst.reason === Reasons.RollingOut && reporting.length > 1) worst = { ...worst, message: `${worst.message} ${serving} of ${reporting.length} runtime replicas serve it.` };
    // A replica that has not acted on the app says nothing of what it serves: what the status said stands.
    fields = worst.report ? servingFields(worst.report, observation.hosts) : unchanged;
    const held = migrationsHeld(app) ?? (worst.reason === Reasons.Serving ? quarantined(reporting) : undefined) ?? aborted(app);
    const ready = held ?? (worst.reason === Reasons.Serving ? `The app is served${fields.url ? ` at ${fields.url}` : ''}.` : worst.message);
    updates = conditions({ status: worst.reason === Reasons.Serving ? 'True' : 'False', reason: worst.reason, message: worst.message }, ready);
    const hostnames = worst.reason === Reasons.Serving ? hostnamesCondition(app, observation.hosts ?? worst.report?.hosts ?? []) : undefined;
    if (hostnames) updates.push(hostnames);
  }
  let list = app.status?.conditions ?? [];
  // Gone once the spec asks for no host names. Otherwise, until a spec is served, the condition keeps what it
  // said of an earlier generation (its observedGeneration says which).
  if (!app.spec.hostnames?.length) list = removeCondition(list, 'HostnamesServed').conditions;
  const migrations = migrationsCondition(app);
  if (migrations) updates.push(migrations);
  else list = removeCondition(list, 'MigrationsApplied').conditions;
  const rollout = rolloutCondition(app.status?.rollout);
  if (rollout) updates.push(rollout);
  else list = removeCondition(list, 'RolloutProgressing').conditions;
  for (const update of updates) list = setCondition(list, update, generation, now).conditions;
  return {
    ...rest,
    ...Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== undefined)),
    conditions: list,
    ...(generation !== undefined ? { observedGeneration: generation } : {}),
  };
}
