// What of a RuntimeApp a runtime replica acts on. The replica caches this view of every app; the operator tells
// by it which changes a replica has to act on (its reports' `acted` mark is compared with the last of them).
import type { RuntimeApp } from '../apis/v1alpha1/runtime-app.ts';
import type { KubeObject } from '../kube/types.ts';
import { migrationsPending } from './releases.ts';

/**
 * The metadata the runtime reads: identity, version, generation (its reports), deletion, and of an app its creation
 * (quarantine). Not the uid: nothing here reads it, and every replica holds this for every app.
 */
export function servingMetadata(obj: KubeObject, withCreation = false): KubeObject['metadata'] {
  const { name, namespace, resourceVersion, generation, creationTimestamp, deletionTimestamp } = obj.metadata ?? {};
  return {
    ...(withCreation && creationTimestamp !== undefined ? { creationTimestamp } : {}),
    ...(name !== undefined ? { name } : {}),
    ...(namespace !== undefined ? { namespace } : {}),
    ...(resourceVersion !== undefined ? { resourceVersion } : {}),
    ...(generation !== undefined ? { generation } : {}),
    ...(deletionTimestamp !== undefined ? { deletionTimestamp } : {}),
  };
}

/**
 * A RuntimeApp as a replica acts on it: the spec, and the releases the operator's `status.rollout`,
 * `status.migrations` and, while the spec's migrations are pending (the only time `servingPlan` reads it),
 * `status.served` name (src/runtime-contract/releases.ts). The rest of the status (conditions, deploy history,
 * hosts, the release served otherwise) is for people and cw-api: the operator writing it is no change to act on.
 */
export function servingView(obj: KubeObject): RuntimeApp {
  const { status, spec, apiVersion, kind } = obj as RuntimeApp;
  const app: RuntimeApp = { apiVersion, kind, metadata: servingMetadata(obj, true), spec };
  const { rollout, migrations } = status ?? {};
  const served = status?.served && migrationsPending(obj as RuntimeApp) ? status.served : undefined;
  // No status at all when none of the three is there: a first status of conditions only changes nothing here.
  if (!rollout && !served && !migrations) return app;
  return { ...app, status: { ...(rollout ? { rollout } : {}), ...(served ? { served } : {}), ...(migrations ? { migrations } : {}) } };
}
