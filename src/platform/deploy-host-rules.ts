import { MAX_APP_HOSTNAMES, type RuntimeApp } from '../apis/v1alpha1/runtime-app.ts';
import { ForbiddenError } from '../auth/index.ts';
import { isInZone } from '../dns/names.ts';
import { BadRequestError, ConflictError } from '../errors.ts';
import { defaultHost, defaultHostOwner } from '../runtime-contract/hosts.ts';
import type { AppStore } from './app-store.ts';
import { customHostnameProblem } from './custom-hostnames.ts';
import { foreignBaseDomainHost } from './deploy-hostnames.ts';
import type { NameFacts } from './host-admission.ts';

/** No claims known: every custom host name needs attaching first. */
const NO_NAMES: NameFacts = { baseDomain: '', now: new Date(0), domainHolder: () => undefined, hostnameHolder: () => undefined, projectDomain: () => undefined, hostnameActive: () => false };

export interface DeployHostRulesOptions {
  readonly baseDomain: string;
  /** What the host-name admission rule reads (host-admission.ts); without it, custom host names need attaching first. */
  readonly nameFacts?: (() => NameFacts) | undefined;
  /** The app's finalized AppHostnames (see BuildCatalogOptions). */
  readonly finalizedHostnames?: ((project: string, appId: string) => readonly string[]) | undefined;
}

/** Which deploy host names an app may have: what a deploy checks, and a rollback checks again. */
export class DeployHostRules {
  readonly #store: AppStore;
  readonly #options: DeployHostRulesOptions;

  constructor(store: AppStore, options: DeployHostRulesOptions) {
    this.#store = store;
    this.#options = options;
  }

  /** The app's AppHostnames whose proof of control completed. */
  finalized(project: string, appId: string): readonly string[] {
    return this.#options.finalizedHostnames?.(project, appId) ?? [];
  }

  /** `hostnames`, checked against the app's limit counting the attached custom domains it is also served on (409). */
  withinLimit(project: string, appId: string, hostnames: readonly string[]): readonly string[] {
    const all = new Set([...hostnames, ...this.finalized(project, appId)]);
    if (all.size > MAX_APP_HOSTNAMES) {
      throw new ConflictError(
        `hostnames: with its ${all.size - hostnames.length} attached custom domains the app would have ${all.size} host names, more than the ${MAX_APP_HOSTNAMES} an app can have; deploy fewer.`,
      );
    }
    return hostnames;
  }

  /**
   * The requested host names, minus the app's own default host. Names under the runtime's base domain must
   * be the project's (else 400); a custom name must be one the project controls (custom-hostnames.ts; else
   * 403); a name another app is bound to, or another app's default host, is a 409.
   */
  check(project: string, appId: string, hostnames: readonly string[]): string[] {
    const { baseDomain } = this.#options;
    const own = defaultHost(project, appId, baseDomain);
    const isOther = (a: RuntimeApp): boolean => !(a.metadata?.namespace === project && a.metadata?.name === appId);
    // Looked up by host, not gathered from every app of the cluster: another app's default host, a name another
    // app's spec lists, a name another app of this project has attached.
    const finalizedByOthers = new Set(
      this.#store
        .list(project)
        .filter(isOther)
        .flatMap((a) => this.finalized(project, a.metadata?.name ?? '')),
    );
    const taken = (hostname: string): boolean => {
      const owner = defaultHostOwner(hostname, baseDomain);
      if (owner && this.#store.find(owner.project, owner.appId) && !(owner.project === project && owner.appId === appId)) return true;
      return this.#store.listing(hostname).some(isOther) || finalizedByOthers.has(hostname);
    };
    // Names bound by attaching and finalizing them: a name the app has only because an earlier deploy bound
    // it proves nothing (the domain it was under may have been deleted, or handed to another project, since),
    // and neither does an attach whose proof is still pending.
    const finalized = this.finalized(project, appId);
    const kept: string[] = [];
    for (const hostname of hostnames) {
      if (hostname === own) continue;
      const foreign = foreignBaseDomainHost(hostname, project, baseDomain);
      if (foreign) throw new BadRequestError(foreign);
      if (!isInZone(hostname, baseDomain)) {
        const problem = customHostnameProblem(hostname, { project, appId, bound: finalized }, this.#options.nameFacts?.() ?? NO_NAMES);
        if (problem) throw new ForbiddenError(problem);
      }
      if (taken(hostname)) throw new ConflictError(`hostnames: ${hostname} is already bound to another app.`);
      kept.push(hostname);
    }
    return kept;
  }
}
