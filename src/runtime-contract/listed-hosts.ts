import type { RuntimeApp } from '../apis/v1alpha1/runtime-app.ts';
import { normalizeHost } from './hosts.ts';

/**
 * The host names an app's spec lists (`spec.hostnames`), normalised: what an index of apps by listed host
 * (`InformerIndex`) keys them by, so a lookup by host replaces a scan of every app of the cluster.
 */
export function listedHostsOf(app: RuntimeApp): string[] {
  return (app.spec.hostnames ?? []).map(normalizeHost).filter((h): h is string => h !== undefined);
}
