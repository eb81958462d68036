import type { AppHostname } from '../src/apis/v1alpha1/app-hostname.ts';
import type { RuntimeApp } from '../src/apis/v1alpha1/runtime-app.ts';
import type { KubeObject } from '../src/kube/index.ts';

// Every replica caches every app of the installation, so what it keeps per object is multiplied by all of them:
// these projections keep what the runtime reads and nothing written for people, the operator or the API. The
// runtime never writes these objects, so nothing it caches is ever written back without the dropped fields.

/** The metadata the runtime reads: identity, version, generation (its reports), deletion, and of an app its creation (quarantine). Not labels, annotations, finalizers, owners. */
function servingMetadata(obj: KubeObject, withCreation = false): KubeObject['metadata'] {
  const { name, namespace, uid, resourceVersion, generation, creationTimestamp, deletionTimestamp } = obj.metadata ?? {};
  return {
    ...(withCreation && creationTimestamp !== undefined ? { creationTimestamp } : {}),
    ...(name !== undefined ? { name } : {}),
    ...(namespace !== undefined ? { namespace } : {}),
    ...(uid !== undefined ? { uid } : {}),
    ...(resourceVersion !== undefined ? { resourceVersion } : {}),
    ...(generation !== undefined ? { generation } : {}),
    ...(deletionTimestamp !== undefined ? { deletionTimestamp } : {}),
  };
}

/**
 * What a runtime replica caches of each RuntimeApp: the spec, and the releases the operator's `status.rollout`,
 * `status.served` and `status.migrations` name (src/runtime-contract/releases.ts). The rest of the status
 * (conditions, deploy history, hosts, replica counts) is for people and cw-api.
 */
export function projectRuntimeApp(obj: KubeObject): RuntimeApp {
  const { status, spec, apiVersion, kind } = obj as RuntimeApp;
  const app: RuntimeApp = { apiVersion, kind, metadata: servingMetadata(obj, true), spec };
  if (!status) return app;
  const { rollout, served, migrations } = status;
  return { ...app, status: { ...(rollout ? { rollout } : {}), ...(served ? { served } : {}), ...(migrations ? { migrations } : {}) } };
}

/** What a runtime replica caches of each AppHostname: its name, app and whether it is active (`isActiveHostname`). */
export function projectAppHostname(obj: KubeObject): AppHostname {
  const { status, spec, apiVersion, kind } = obj as AppHostname;
  const hostname: AppHostname = { apiVersion, kind, metadata: servingMetadata(obj), spec };
  return status?.state !== undefined ? { ...hostname, status: { state: status.state } } : hostname;
}
