import type { RuntimeApp } from '../src/apis/v1alpha1/runtime-app.ts';
import type { KubeObject } from '../src/kube/index.ts';

/**
 * What a runtime replica caches of each RuntimeApp: what it serves from (the spec, and the releases the
 * operator's `status.rollout`, `status.served` and `status.migrations` name; src/runtime-contract/releases.ts).
 * The rest of the status (conditions, deploy history, hosts, replica counts) is for people and cw-api; every
 * replica caches every app, so what it keeps per app is multiplied by the apps of the whole installation.
 * The runtime never writes a RuntimeApp, so nothing it caches is ever written back without these fields.
 */
export function projectRuntimeApp(obj: KubeObject): RuntimeApp {
  const { status, ...app } = obj as RuntimeApp;
  if (!status) return app;
  const { rollout, served, migrations } = status;
  return { ...app, status: { ...(rollout ? { rollout } : {}), ...(served ? { served } : {}), ...(migrations ? { migrations } : {}) } };
}
