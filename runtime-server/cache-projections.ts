import { isDeepStrictEqual } from 'node:util';
import type { AppHostname } from '../src/apis/v1alpha1/app-hostname.ts';
import { CREATED_BY_USER_ANNOTATION, type Project } from '../src/apis/v1alpha1/project.ts';
import type { RuntimeApp } from '../src/apis/v1alpha1/runtime-app.ts';
import type { KubeObject } from '../src/kube/index.ts';
import { servingMetadata, servingView } from '../src/runtime-contract/serving-view.ts';
import { refusal } from './recorded-fallback.ts';

// Every replica caches every app of the installation, so what it keeps per object is multiplied by all of them:
// these projections keep what the runtime reads and nothing written for people, the operator or the API. The
// runtime never writes these objects, so nothing it caches is ever written back without the dropped fields.

/**
 * What a runtime replica caches of each RuntimeApp: what it acts on (`servingView`; the informer shares its short strings), and
 * `status.served` while it names another build than the spec's or other database variables (`recordedFallback`,
 * `servedInstead`: what the app falls back to here if that build cannot be served, or those variables cannot be had).
 * Dropped again once the operator records the spec's release as served, so it costs
 * memory only for apps whose deploy is under way or was refused; and of a spec a replica refused, that `Ready`
 * condition without its message (`refusedBefore`).
 */
export function projectRuntimeApp(obj: KubeObject): RuntimeApp {
  const view = servingView(obj);
  const served = (obj as RuntimeApp).status?.served;
  const refused = refusal(obj as RuntimeApp);
  const sameAsSpec = served && served.buildId === view.spec.activeBuildId && isDeepStrictEqual(served.databaseEnvironment ?? {}, view.spec.databaseEnvironment ?? {});
  const withServed = !served || view.status?.served || sameAsSpec ? view : { ...view, status: { ...view.status, served: sharingSpec(served, view.spec) } };
  // The spec refused by a replica (`refusedBefore`): only that condition, with its generation, for a replica that has not tried it.
  if (!refused) return withServed;
  const condition = { type: 'Ready', status: refused.status, reason: 'BuildFailed', message: '', lastTransitionTime: refused.lastTransitionTime, observedGeneration: refused.observedGeneration };
  return { ...withServed, status: { ...withServed.status, conditions: [condition] } };
}

/**
 * The served release with the spec's environment objects in place of its own where they are equal, as they are
 * after a deploy of a new build alone: an environment may take 64 KiB, and each replica would hold it twice.
 */
function sharingSpec(served: NonNullable<RuntimeApp['status']>['served'] & object, spec: RuntimeApp['spec']): typeof served {
  const environment = served.environment && isDeepStrictEqual(served.environment, spec.environment) ? spec.environment : served.environment;
  const databaseEnvironment = served.databaseEnvironment && isDeepStrictEqual(served.databaseEnvironment, spec.databaseEnvironment) ? spec.databaseEnvironment : served.databaseEnvironment;
  return environment === served.environment && databaseEnvironment === served.databaseEnvironment ? served : { ...served, environment, databaseEnvironment };
}

/**
 * What a runtime replica caches of each AppHostname: its host, app and whether it is active (`isActiveHostname`);
 * not how its DNS is published. An AppHostname is named after its host: the two fields hold one string.
 */
export function projectAppHostname(obj: KubeObject): AppHostname {
  const { status, spec, apiVersion, kind } = obj as AppHostname;
  const metadata = servingMetadata(obj);
  const host = spec.hostname === metadata?.name ? metadata.name : spec.hostname;
  const hostname: AppHostname = { apiVersion, kind, metadata, spec: { hostname: host, appRef: { name: spec.appRef.name } } };
  return status?.state !== undefined ? { ...hostname, status: { state: status.state } } : hostname;
}

/**
 * What a runtime replica caches of each Project: its name and the user who created it, the one thing it reads
 * (`projectAccount`: whom the project's use of the replica's shared bounds counts against).
 */
export function projectAccountView(obj: KubeObject): Project {
  const { apiVersion, kind } = obj;
  const { name, resourceVersion, annotations } = obj.metadata ?? {};
  const creator = annotations?.[CREATED_BY_USER_ANNOTATION];
  return {
    apiVersion,
    kind,
    metadata: {
      ...(name !== undefined ? { name } : {}),
      ...(resourceVersion !== undefined ? { resourceVersion } : {}),
      ...(creator !== undefined ? { annotations: { [CREATED_BY_USER_ANNOTATION]: creator } } : {}),
    },
    spec: { displayName: '' },
  } as Project;
}
