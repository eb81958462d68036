import { buildKey } from './build-store.ts';
import type { AppDeployment } from './ports.ts';
import type { Served } from './served.ts';
import type { LiveApp } from './worker-code.ts';

/**
 * What a convergence pass may forget: the loader ids no served app uses (only once no workerd is retiring:
 * a draining workerd may still load an app's previous isolate), and the unpacked builds to keep (desired,
 * served, or still loadable by id).
 */
export function retention(desired: Iterable<AppDeployment>, served: Iterable<Served>, code: ReadonlyMap<string, LiveApp>, retiring: boolean): { unusedIds: string[]; keepBuilds: Set<string> } {
  const keepBuilds = new Set<string>();
  for (const app of desired) {
    keepBuilds.add(buildKey(app));
    if (app.canary) keepBuilds.add(buildKey({ ...app, buildId: app.canary.buildId }));
  }
  const ids = new Set<string>();
  for (const s of served) {
    keepBuilds.add(buildKey(s.live.app));
    ids.add(s.id);
    if (s.canary) {
      keepBuilds.add(buildKey(s.canary.live.app));
      ids.add(s.canary.id);
    }
  }
  const unusedIds = retiring ? [] : [...code.keys()].filter((id) => !ids.has(id));
  for (const [id, live] of code) if (!unusedIds.includes(id)) keepBuilds.add(buildKey(live.app));
  return { unusedIds, keepBuilds };
}
