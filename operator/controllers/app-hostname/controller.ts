import type { Registry } from 'prom-client';
import type { AppHostname, AppHostnameStatus } from '../../../src/apis/v1alpha1/app-hostname.ts';
import type { Build } from '../../../src/apis/v1alpha1/build.ts';
import type { DnsRecord } from '../../../src/apis/v1alpha1/dns-record.ts';
import type { ProjectDomain } from '../../../src/apis/v1alpha1/project-domain.ts';
import type { RuntimeApp } from '../../../src/apis/v1alpha1/runtime-app.ts';
import { setCondition, statusChanged, type ConditionUpdate } from '../../../src/conditions/index.ts';
import type { Informer, KubeConnection, KubeObject } from '../../../src/kube/index.ts';
import { AppStore } from '../../../src/platform/app-store.ts';
import type { DnsSettings } from '../../../src/platform/domains/dns-settings.ts';
import { DomainStore } from '../../../src/platform/domains/domain-store.ts';
import { challengeToken, desiredManagedRecords, ensureManagedRecords, externalRecords, noRuntimeAddresses, recordItems, recordsApplied } from '../../../src/platform/domains/hostname-records.ts';
import { Controller } from '../../controller-runtime/controller.ts';
import type { Logger } from '../../controller-runtime/log.ts';
import { MAX_APP_HOSTNAMES } from '../../../src/apis/v1alpha1/runtime-app.ts';
import { NotFoundError } from '../../../src/errors.ts';

export interface AppHostnameControllerDeps {
  kube: KubeConnection;
  hostnames: Informer<AppHostname>;
  domains: Informer<ProjectDomain>;
  records: Informer<DnsRecord>;
  apps: Informer<RuntimeApp>;
  builds: Informer<Build>;
  settings: DnsSettings;
  registry: Registry;
  log: Logger;
  now?: () => Date;
}

/**
 * Reconciles AppHostnames, whether the API or `kubectl apply` made them: RuntimeAttached says whether the
 * app exists; in managed mode the platform-owned DnsRecords are kept as they should be in the managed
 * project domain holding the hostname and DnsReady follows them; in external mode the records to publish
 * (with the ownership challenge) are in the status. An active hostname (finalized through the API) stays in
 * its app's host names, so a deploy that replaced them gets it back. Activation itself is the API's
 * finalize: it verifies the records first.
 */
export function appHostnameController(deps: AppHostnameControllerDeps): Controller<AppHostname> {
  const now = deps.now ?? (() => new Date());
  const store = new DomainStore(deps.kube, { domains: deps.domains, records: deps.records, hostnames: deps.hostnames });
  const apps = new AppStore(deps.kube, deps.apps, deps.builds);
  const inNamespace = (obj: KubeObject, pick: (h: AppHostname) => boolean) =>
    deps.hostnames.list().filter((h) => h.metadata?.namespace === obj.metadata?.namespace && pick(h)).map((h) => `${h.metadata?.namespace}/${h.metadata?.name}`);

  return new Controller<AppHostname>({
    name: 'apphostname',
    kind: 'AppHostname',
    source: deps.hostnames,
    owns: [
      { kind: 'DnsRecord', source: deps.records },
      { kind: 'RuntimeApp', source: deps.apps, mapToOwner: (app) => inNamespace(app, (h) => h.spec.appRef.name === app.metadata?.name) },
      { kind: 'ProjectDomain', source: deps.domains, mapToOwner: (d) => inNamespace(d, (h) => h.spec.dnsMode === 'managed_project_domain') },
    ],
    registry: deps.registry,
    log: deps.log,
    workers: 2,
    reconcile: async (key, { namespace }) => {
      const h = deps.hostnames.get(key);
      if (!h || h.metadata?.deletionTimestamp) return;
      const hostname = h.spec.hostname;
      const appId = h.spec.appRef.name;
      const app = deps.apps.get(`${namespace}/${appId}`);
      const updates: ConditionUpdate[] = [
        app && !app.metadata?.deletionTimestamp
          ? { type: 'RuntimeAttached', status: 'True', reason: 'Attached', message: `The runtime holds ${hostname} for app ${appId}.` }
          : { type: 'RuntimeAttached', status: 'False', reason: 'AppNotFound', message: `App ${appId} does not exist in this project.` },
      ];
      let status: AppHostnameStatus = { ...h.status };
      let dnsReady = false;
      let dnsMessage = '';
      if (h.spec.dnsMode === 'managed_project_domain') {
        const { managed: domain, closest: pending } = store.domainsHolding(namespace, hostname);
        const desired = domain && unlessUnroutable(() => desiredManagedRecords(h, domain, deps.settings.runtimeTarget));
        if (!domain) {
          dnsMessage = pending
            ? `The project domain ${pending.spec.domain} is pending_delegation: the records are written once it is managed.`
            : `No project domain of this project holds ${hostname}; add it to write the records.`;
          updates.push({ type: 'DnsReady', status: 'False', reason: 'DomainNotManaged', message: dnsMessage });
        } else if (!desired) {
          dnsMessage = noRuntimeAddresses(hostname);
          updates.push({ type: 'DnsReady', status: 'False', reason: 'NoRuntimeTarget', message: dnsMessage });
        } else {
          const records = await ensureManagedRecords(store, desired);
          const applied = recordsApplied(records, store);
          dnsReady = applied.applied;
          dnsMessage = applied.message;
          status = { ...status, projectDomain: domain.metadata?.name ?? '', dnsRecords: recordItems(desired, domain) };
          updates.push({ type: 'DnsReady', status: applied.applied ? 'True' : 'False', reason: applied.reason, message: applied.message });
        }
      } else {
        const token = challengeToken(h);
        const dnsRecords = unlessUnroutable(() => externalRecords(hostname, deps.settings.runtimeTarget, token));
        // A binding made before the runtime's addresses were removed (the API refuses new ones): said, not retried.
        if (dnsRecords) status = { ...status, verificationToken: token, dnsRecords };
        else updates.push({ type: 'DnsReady', status: 'False', reason: 'NoRuntimeTarget', message: noRuntimeAddresses(hostname) });
      }
      const active = status.state === 'active';
      let full = false;
      // Only for an app with a build: deleting an app clears its build and host names together, and must not
      // have them put back while its hostnames are being deleted.
      if (active && app?.spec.activeBuildId && !app.metadata?.deletionTimestamp && !(app.spec.hostnames ?? []).includes(hostname)) {
        try {
          await apps.update(namespace, appId, (a) => {
            const hosts = a.spec.hostnames ?? [];
            if (!a.spec.activeBuildId || hosts.includes(hostname)) return undefined;
            full = hosts.length >= MAX_APP_HOSTNAMES;
            return full ? undefined : { ...a.spec, hostnames: [...hosts, hostname] };
          });
        } catch (err) {
          if (!(err instanceof NotFoundError)) throw err; // the app went meanwhile: its hostnames go with it
        }
      }
      updates.push(
        full
          ? { type: 'Ready', status: 'False', reason: 'TooManyHostnames', message: `App ${appId} is served on ${MAX_APP_HOSTNAMES} host names besides its default host, the most it can have; deploy with fewer hostnames.` }
          : active
          ? { type: 'Ready', status: 'True', reason: 'Active', message: `App ${appId} is served on ${hostname}.` }
          : h.spec.dnsMode === 'managed_project_domain' && !dnsReady
            ? { type: 'Ready', status: 'False', reason: 'DnsNotApplied', message: dnsMessage }
            : { type: 'Ready', status: 'False', reason: 'AwaitingFinalize', message: `Make the DNS records of ${hostname} live, then finalize (POST …/apps/${appId}/domains/${hostname}/finalize).` },
      );
      let conditions = status.conditions ?? [];
      for (const u of updates) conditions = setCondition(conditions, u, h.metadata?.generation, now()).conditions;
      const next: AppHostnameStatus = { ...status, state: status.state ?? 'pending', conditions, observedGeneration: h.metadata?.generation };
      if (!statusChanged(h.status, next)) return;
      await store.updateHostnameStatus(h, (live) => (statusChanged(live.status, next) ? { ...live.status, ...next, state: live.status?.state === 'active' ? 'active' : next.state } : undefined));
    },
  });
}

/** The records, or `undefined` when the runtime target cannot route them (an apex without addresses: they throw). */
function unlessUnroutable<T>(records: () => T): T | undefined {
  try {
    return records();
  } catch {
    return undefined;
  }
}
