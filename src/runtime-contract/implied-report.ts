// The report a replica leaves out: what it would say of an app it serves just as the app asks. Both sides compute it
// from the app (cw-runtime to know what to leave out, the operator to read it back), so an installation of apps
// without failures or rollouts has next to nothing in its reports.
import type { RuntimeApp } from '../apis/v1alpha1/runtime-app.ts';
import { defaultHost } from './hosts.ts';
import { servingPlan } from './releases.ts';
import type { RuntimeAppReport } from './report.ts';

/** How a replica writes an app's default host and URL: the base domain, and the scheme and port clients use. */
export interface DefaultHostSettings {
  readonly domain: string;
  readonly scheme: 'http' | 'https';
  readonly port?: number;
}

/** The URL of a default host, as the replica's engine presents it. */
export function defaultURL(host: string, settings: { readonly scheme: string; readonly port?: number }): string {
  return `${settings.scheme}://${host}${settings.port === undefined ? '' : `:${settings.port}`}`;
}

/**
 * What a replica that has acted on `app` as it is now reports of it when it has nothing to add: the release its
 * serving plan names (the spec, or the one release a finished rollout or pending migrations keep) served at its
 * generation. Its hosts are its default host: the operator decides the hosts the status says (the replicas' rule,
 * `AssignedHosts`), so a replica does not compare them when it leaves a report out. `undefined` where there is no
 * such plain report: no build, being deleted,
 * a rollout's split (its counts are reported) or nothing served until migrations run.
 */
export function impliedReport(app: RuntimeApp, settings: DefaultHostSettings): RuntimeAppReport | undefined {
  const namespace = app.metadata?.namespace;
  const name = app.metadata?.name;
  const generation = app.metadata?.generation;
  if (!namespace || !name || generation === undefined || !app.spec.activeBuildId || app.metadata?.deletionTimestamp) return undefined;
  const plan = servingPlan(app);
  if (plan.kind !== 'spec' && plan.kind !== 'single') return undefined;
  const host = defaultHost(namespace, name, settings.domain);
  return {
    namespace,
    app: name,
    servingBuildId: plan.kind === 'spec' ? app.spec.activeBuildId : plan.release.buildId,
    url: defaultURL(host, settings),
    hosts: [host],
    servedGeneration: generation,
    observedGeneration: generation,
  };
}
