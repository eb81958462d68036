import type { Build } from '../apis/v1alpha1/build.ts';
import type { RuntimeApp } from '../apis/v1alpha1/runtime-app.ts';
import type { RolloutPhase } from '../apis/v1alpha1/rollout.ts';
import { PREVIEW_BRANCH_ANNOTATION, PREVIEW_OF_LABEL } from '../apis/v1alpha1/app-source.ts';
import { findCondition } from '../conditions/index.ts';
import { defaultHost } from '../runtime-contract/hosts.ts';
import { httpsView, type HttpsView } from './app-https-settings.ts';
import { deployOptionsView, type DeployOptionsView } from './deploy-options.ts';

/** Annotation on a Build: when it was uploaded, to the millisecond (creationTimestamp has whole seconds). */
export const UPLOADED_AT_ANNOTATION = 'cloudwright.dev/uploaded-at';
/** Label on a Build naming its app, so an app's builds can be listed by selector. */
export const APP_LABEL = 'cloudwright.dev/app';

/** A build as the REST API shows it. */
export interface BuildView {
  build_id: string;
  created_at: string;
  size: number;
  /** `sha256:<hex>` of the uploaded `.tar.zst`. */
  digest: string;
  active: boolean;
  /** The options it was last deployed with, which a rollback to it applies; absent when none were recorded. */
  deploy_options?: DeployOptionsView;
}

/** An app as the REST API shows it. */
export interface AppView {
  app_id: string;
  name: string;
  /** `''` until the first deploy. */
  active_build_id: string;
  /** Newest first. */
  builds: { build_id: string }[];
  /** The default host first, then the deploy's host names. */
  hosts: string[];
  /** The default host's URL, once the runtime reports serving it. */
  url?: string;
  /** The runtime serves the current spec: the Ready condition is True for the app's current generation. */
  ready: boolean;
  /** The Ready condition's reason (`Serving`, `RollingOut`, `BuildFailed`, …), once the operator reported one. */
  status_reason?: string;
  /** The runtime's account of `ready` (the Ready condition's message), once it reported one. */
  status_message?: string;
  /** The build the runtime serves now (it differs from `active_build_id` while a deploy rolls out). */
  serving_build_id?: string;
  /** Redirect to HTTPS and HSTS (`spec.https`). */
  https: HttpsView;
  created_at: string;
  /** A preview app: the app whose repository's branch it serves. */
  preview_of?: string;
  /** A preview app's branch. */
  branch?: string;
  /** The repository (`owner/name`) connected to the app, when one is. */
  source?: string;
  /** Why the connected repository's latest push to the production branch is not served, when it is not (one line). */
  source_message?: string;
  /** The latest rollout (`status.rollout`), once there was one. */
  rollout?: RolloutSummary;
}

/** An app's latest rollout in a line: where it is and which build it brings. */
export interface RolloutSummary {
  phase: RolloutPhase;
  weight: number;
  canary_build_id: string;
}

/** What the app view says of a connected repository. */
export interface AppSourceSummary {
  readonly repository: string;
  readonly message?: string | undefined;
}

export function hostsOf(app: RuntimeApp, baseDomain: string, attached: readonly string[] = []): string[] {
  const appId = app.metadata?.name ?? '';
  const first = defaultHost(app.metadata?.namespace ?? '', appId, baseDomain);
  return [...new Set([first, ...(app.spec.hostnames ?? []), ...attached])];
}

export function appView(app: RuntimeApp, builds: readonly Build[], baseDomain: string, attached: readonly string[] = [], source?: AppSourceSummary): AppView {
  const previewOf = app.metadata?.labels?.[PREVIEW_OF_LABEL];
  const branch = app.metadata?.annotations?.[PREVIEW_BRANCH_ANNOTATION];
  const ready = findCondition(app.status?.conditions, 'Ready');
  // Before any rollout the operator records only the stable release: there is nothing to summarise.
  const rollout = app.status?.rollout;
  return {
    app_id: app.metadata?.name ?? '',
    name: app.spec.displayName,
    active_build_id: app.spec.activeBuildId ?? '',
    builds: newestFirst(builds).map((b) => ({ build_id: b.spec.buildId })),
    hosts: hostsOf(app, baseDomain, attached),
    ...(app.status?.url ? { url: app.status.url } : {}),
    // A condition computed for an earlier generation says nothing about the spec just written (a deploy).
    ready: ready?.status === 'True' && (ready.observedGeneration ?? 0) >= (app.metadata?.generation ?? 0),
    ...(ready?.reason ? { status_reason: ready.reason } : {}),
    ...(ready?.message ? { status_message: ready.message } : {}),
    ...(app.status?.servingBuildId ? { serving_build_id: app.status.servingBuildId } : {}),
    https: httpsView(app.spec.https),
    created_at: app.metadata?.creationTimestamp ?? '',
    ...(previewOf ? { preview_of: previewOf } : {}),
    ...(previewOf && branch ? { branch } : {}),
    ...(source ? { source: source.repository, ...(source.message ? { source_message: source.message } : {}) } : {}),
    ...(rollout?.canary ? { rollout: { phase: rollout.phase, weight: rollout.weight, canary_build_id: rollout.canary.buildId } } : {}),
  };
}

export function buildView(build: Build, activeBuildId: string | undefined): BuildView {
  return {
    build_id: build.spec.buildId,
    created_at: uploadedAtOf(build),
    size: build.spec.size,
    digest: `sha256:${build.spec.digest}`,
    active: build.spec.buildId === activeBuildId,
    ...(build.spec.deployOptions ? { deploy_options: deployOptionsView(build.spec.deployOptions) } : {}),
  };
}

/** Newest upload first; builds of the same instant by id, so the order is stable. */
export function newestFirst(builds: readonly Build[]): Build[] {
  return [...builds].sort((a, b) => {
    const [ta, tb] = [Date.parse(uploadedAtOf(a)) || 0, Date.parse(uploadedAtOf(b)) || 0];
    return tb - ta || a.spec.buildId.localeCompare(b.spec.buildId);
  });
}

/** When the build was last uploaded: its annotation, or its creation for one recorded without it. */
export function uploadedAtOf(build: Build): string {
  return build.metadata?.annotations?.[UPLOADED_AT_ANNOTATION] ?? build.metadata?.creationTimestamp ?? '';
}
