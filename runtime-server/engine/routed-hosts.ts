import type { RuntimeLogger } from '../../src/runtime-contract/log.ts';
import type { AppDeployment } from './ports.ts';
import type { Served } from './served.ts';
import { hostAssignment } from './shard-tables.ts';

/**
 * Host → app when apps are served on demand: every app deployed is routed, prepared or not; a served app claims
 * the names of what it serves (those of its desired state unless a change of them failed), the others those of
 * their desired state. Computed again only when some app's host names may have changed (`changed`), so the pass
 * of a first request costs no walk over every app routed.
 */
export class RoutedHosts {
  readonly #baseDomain: string;
  readonly #log: RuntimeLogger;
  #version = 0;
  #last: { readonly version: number; readonly differing: string; readonly result: ReadonlyMap<string, string> } | undefined;

  constructor(baseDomain: string, log: RuntimeLogger) {
    this.#baseDomain = baseDomain;
    this.#log = log;
  }

  /** An app's deployment goes from `before` to `after` (either absent: deployed new, or removed). */
  changed(before: AppDeployment | undefined, after: AppDeployment | undefined): void {
    if (hostsOf(before) !== hostsOf(after)) this.#version += 1;
  }

  /** The assignment for what `next` serves and the rest of `desired`; the same object while nothing changed. */
  assign(next: ReadonlyMap<string, Served>, desired: ReadonlyMap<string, { readonly app: AppDeployment }>): ReadonlyMap<string, string> {
    const apps: Array<[string, AppDeployment]> = [...next].map(([key, s]) => [key, s.live.app]);
    const differing = apps
      .filter(([key, app]) => hostsOf(app) !== hostsOf(desired.get(key)?.app))
      .map(([key, app]) => `${key}=${hostsOf(app)}`)
      .join('\n');
    const last = this.#last;
    if (last?.version === this.#version && last.differing === differing) return last.result;
    for (const [key, { app }] of desired) if (!next.has(key)) apps.push([key, app]);
    const result = hostAssignment(apps, this.#baseDomain, this.#log);
    this.#last = { version: this.#version, differing, result };
    return result;
  }
}

/** The host names a deployment asks for, as one comparable string; `undefined`: not deployed (no default host either). */
function hostsOf(app: AppDeployment | undefined): string | undefined {
  return app?.hostnames.join(' ');
}
