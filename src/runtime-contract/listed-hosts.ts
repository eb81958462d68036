import type { RuntimeApp } from '../apis/v1alpha1/runtime-app.ts';
import { InformerIndex, type IndexedSource } from '../kube/informer-index.ts';
import { normalizeHost } from './hosts.ts';

/**
 * Apps by the host names their spec lists (`spec.hostnames`, normalised), kept up to date by the apps' events: a
 * lookup by host where a scan of every app of the cluster would grow with the installation. `counts` says
 * whether an app's names count (absent: all do); `current` is what the source holds already.
 */
export function listedHosts(apps: IndexedSource<RuntimeApp>, options: { counts?: (app: RuntimeApp) => boolean; current?: readonly RuntimeApp[] } = {}): InformerIndex<RuntimeApp> {
  const counts = options.counts ?? (() => true);
  return new InformerIndex(apps, (app) => (counts(app) ? (app.spec.hostnames ?? []).map(normalizeHost).filter((h): h is string => h !== undefined) : []), options.current);
}
