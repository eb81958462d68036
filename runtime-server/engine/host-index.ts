/**
 * A host assignment (normalised host → app key) indexed by app as well: each app's hosts without a scan of every
 * host, which made answering for every app quadratic in the number of apps (10,000 routed apps took 16 s to
 * deploy at once). Built once per assignment.
 */
export class HostIndex {
  readonly assignment: ReadonlyMap<string, string>;
  readonly #byApp = new Map<string, string[]>();

  constructor(assignment: ReadonlyMap<string, string>) {
    this.assignment = assignment;
    for (const [host, key] of assignment) {
      const hosts = this.#byApp.get(key);
      if (hosts) hosts.push(host);
      else this.#byApp.set(key, [host]);
    }
  }

  /** The hosts of `key`, its default host first (as `hostsOf` in src/runtime-contract/hosts.ts). */
  hostsOf(key: string, defaultHostName: string): string[] {
    const rest = (this.#byApp.get(key) ?? []).filter((host) => host !== defaultHostName);
    return [defaultHostName, ...rest.sort()];
  }
}
