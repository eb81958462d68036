import type { Registry } from 'prom-client';
import type { AppHostname } from '../../../src/apis/v1alpha1/app-hostname.ts';
import type { DomainClaim, HostnameClaim } from '../../../src/apis/v1alpha1/domain-claim.ts';
import type { ProjectDomain } from '../../../src/apis/v1alpha1/project-domain.ts';
import { TLS_CERTIFICATE_FINALIZER, TlsCertificateConditions, type TlsCertificate, type TlsCertificateStatus } from '../../../src/apis/v1alpha1/tls-certificate.ts';
import { setCondition, statusChanged } from '../../../src/conditions/index.ts';
import { Controller, type Result } from '../../../src/controller-runtime/controller.ts';
import type { EventRecorder } from '../../../src/controller-runtime/events.ts';
import { addFinalizer, hasFinalizer, runFinalizer } from '../../../src/controller-runtime/finalizers.ts';
import { LatestWrites } from '../../../src/controller-runtime/latest-writes.ts';
import { objectClient, type Informer, type KubeConnection, type KubeObject } from '../../../src/kube/index.ts';
import type { Logger } from '../../../src/logging/log.ts';
import { factsFromClaims } from '../../../src/platform/claim-facts.ts';
import { serveRefusal } from '../../../src/platform/host-admission.ts';
import { TLS_CERTIFICATES } from '../../../src/platform/resources.ts';
import type { SealedStore } from '../../../src/tls/sealed-store.ts';
import type { AcmeClient } from '../../acme/client.ts';
import { acmeAccount, type AcmeSettings } from './acme-account.ts';
import { Dns01Records, type Dns01Answers } from './dns01-records.ts';
import { dns01Answers, PlatformZoneTxt } from './platform-zone-txt.ts';
import type { DnsProvider } from '../../../src/dns/provider.ts';
import type { DnsRecord } from '../../../src/apis/v1alpha1/dns-record.ts';
import { Issuance, renewalWindow, sameNames, withoutOrder, type Step } from './issuance.ts';
import { clip } from './failures.ts';
import { OrderLimiter, ProjectOrderLimiter } from './order-limiter.ts';
import { renewalTime } from './renewal.ts';
import { retireCertificate } from './retirement.ts';
import { http01SelfCheck } from './self-check.ts';

export interface TlsCertificateControllerDeps {
  kube: KubeConnection;
  certificates: Informer<TlsCertificate>;
  hostnames: Informer<AppHostname>;
  domains: Informer<ProjectDomain>;
  domainClaims: Informer<DomainClaim>;
  hostnameClaims: Informer<HostnameClaim>;
  /** The DnsRecords of project domains: dns-01 answers are written as TXT records; absent: no dns-01 there. */
  records?: Informer<DnsRecord>;
  /** The installation's zone for the base domain: dns-01 for projects' default hosts (`*.<project>.<base>`); absent: none. */
  baseZone?: { provider: DnsProvider; zoneId: string };
  baseDomain: string;
  acme: AcmeSettings;
  sealed: SealedStore;
  /** cw-runtime's HTTP entry point as the operator reaches it: each HTTP-01 answer is checked there before the CA is told. */
  http01SelfCheckUrl?: string;
  /** New orders per hour for the account (the rate discipline); default 100, in bursts of 10. */
  ordersPerHour?: number;
  events: EventRecorder;
  registry: Registry;
  log: Logger;
  now?: () => Date;
}

/**
 * Obtains and renews the certificate of every TlsCertificate from the installation's ACME CA, for names the
 * project may serve (host admission, the same rule cw-runtime serves by), and is the only writer of their
 * status. An order advances one exchange per reconcile and lives in the status, so a restart resumes it; a
 * failed order backs off per certificate (1 minute doubling to a day, or the CA's `Retry-After`) while a
 * served certificate keeps being served; renewal follows the CA's renewal information where it offers it.
 * Deleting a TlsCertificate revokes its certificate and deletes its key from the bucket.
 */
export function tlsCertificateController(deps: TlsCertificateControllerDeps): Controller<TlsCertificate> {
  const now = deps.now ?? (() => new Date());
  const client = objectClient<TlsCertificate>(deps.kube, TLS_CERTIFICATES);
  // An order's progress lives in the status: a pass must start from the last one written, not an older cached copy.
  const writes = new LatestWrites<TlsCertificate>();
  let account: Promise<AcmeClient> | undefined;
  const acme = (): Promise<AcmeClient> => {
    // A failed registration is tried again at the next reconcile, not remembered.
    account ??= acmeAccount(deps.acme, deps.sealed).catch((err: unknown) => {
      account = undefined;
      throw err;
    });
    return account;
  };
  const perHour = deps.ordersPerHour ?? 100;
  // A project may take a fifth of the account's hourly budget: one cannot hold up the others' certificates.
  const limiter = new ProjectOrderLimiter({ account: new OrderLimiter({ perHour, burst: 10 }), perProjectPerHour: Math.max(1, Math.floor(perHour / 5)), perProjectBurst: 5 });
  const dns01 = dns01Answers(
    deps.records && new Dns01Records(deps.kube, deps.records, deps.domains),
    deps.baseZone && new PlatformZoneTxt(deps.baseZone.provider, deps.baseZone.zoneId, deps.baseDomain),
  );
  const issuance = new Issuance({
    acme,
    sealed: deps.sealed,
    takeOrder: (project) => limiter.take(project),
    ...dns01Option(dns01),
    ...(deps.acme.profile ? { profile: deps.acme.profile } : {}),
    ...(deps.http01SelfCheckUrl ? { http01Ready: http01SelfCheck(deps.http01SelfCheckUrl) } : {}),
    now,
  });

  /** Why the namespace may not have a certificate for one of the names, or `undefined`. */
  const namesRefusal = (namespace: string, names: readonly string[]): string | undefined => {
    const facts = factsFromClaims({ ...deps, hostnames: deps.hostnames }, now());
    for (const name of names) {
      // A wildcard is the namespace's when a name no claim can hold (an underscore label) under it would be.
      const probe = name.startsWith('*.') ? `_wildcard.${name.slice(2)}` : name;
      const why = serveRefusal(namespace, probe, facts);
      if (why) return name.startsWith('*.') ? `${name}: ${why.replace(probe, `names under ${name.slice(2)}`)}` : why;
    }
    return undefined;
  };
  const certificatesNaming = (pick: (cert: TlsCertificate) => boolean) =>
    deps.certificates
      .list()
      .filter(pick)
      .map((c) => `${c.metadata?.namespace}/${c.metadata?.name}`);
  const inNamespaceOf = (obj: KubeObject) => certificatesNaming((c) => c.metadata?.namespace === obj.metadata?.namespace);
  const naming = (name: string) => certificatesNaming((c) => c.spec.dnsNames.some((n) => n === name || (n.startsWith('*.') && name.endsWith(n.slice(1)))));

  const writeStatus = async (cert: TlsCertificate, step: Step): Promise<void> => {
    const status = withConditions(cert, step.status, now());
    if (statusChanged(cert.status, status)) writes.remember(await client.replaceStatus({ ...cert, status }));
    if (step.event) void deps.events.event(cert, step.event.type, step.event.reason, step.event.message);
    await step.after?.();
  };

  return new Controller<TlsCertificate>({
    name: 'tlscertificate',
    kind: 'TlsCertificate',
    source: deps.certificates,
    owns: [
      { kind: 'AppHostname', source: deps.hostnames, mapToOwner: inNamespaceOf },
      { kind: 'ProjectDomain', source: deps.domains, mapToOwner: inNamespaceOf },
      { kind: 'DomainClaim', source: deps.domainClaims, mapToOwner: (claim) => naming(claim.metadata?.name ?? '') },
      { kind: 'HostnameClaim', source: deps.hostnameClaims, mapToOwner: (claim) => naming(claim.metadata?.name ?? '') },
      ...(deps.records ? [{ kind: 'DnsRecord', source: deps.records }] : []),
    ],
    registry: deps.registry,
    log: deps.log,
    workers: 2,
    reconcile: async (key, { namespace }): Promise<Result> => {
      const cached = deps.certificates.get(key);
      if (!cached) {
        writes.forget(key);
        return;
      }
      let cert = writes.latest(cached);
      if (await runFinalizer(client, cert, TLS_CERTIFICATE_FINALIZER, (c) => retireCertificate(c, { acme, sealed: deps.sealed, log: deps.log }))) return;
      if (!hasFinalizer(cert, TLS_CERTIFICATE_FINALIZER)) {
        cert = await addFinalizer(client, cert, TLS_CERTIFICATE_FINALIZER);
        writes.remember(cert);
      }
      const at = now();
      const status = cert.status ?? {};
      const refusal = namesRefusal(namespace, cert.spec.dnsNames);
      if (refusal) {
        // Nothing is ordered for a name the project does not hold; a change of the claims or the sources comes back here.
        // An order dropped here takes its DNS-01 answers with it, as an order that ends does: those of the names it
        // ordered (the spec may have changed since).
        await writeStatus(cert, {
          status: {
            ...withoutOrder(status),
            state: status.serial ? status.state : 'Pending',
            lastError: { reason: 'NameNotHeld', message: clip(refusal), at: status.lastError?.reason === 'NameNotHeld' ? status.lastError.at : at.toISOString() },
          },
          ...(status.order && dns01 ? { after: () => dns01.remove({ ...cert, spec: { ...cert.spec, dnsNames: status.order?.dnsNames ?? cert.spec.dnsNames } }) } : {}),
        });
        return;
      }
      if (!needsOrder(cert, at)) return requeueAt(await refreshRenewal(cert, at, acme, writeStatus), at);
      if (!status.order && status.nextAttemptAt && Date.parse(status.nextAttemptAt) > at.getTime()) return { requeueAfter: Date.parse(status.nextAttemptAt) - at.getTime() };
      const step = await issuance.step(cert);
      await writeStatus(cert, step);
      if (step.status.state === 'Issued') return requeueAt(step.status, at);
      if (step.requeueAfterMs !== undefined) return { requeueAfter: Math.max(step.requeueAfterMs, 1) };
      return step.status.nextAttemptAt ? { requeueAfter: Math.max(Date.parse(step.status.nextAttemptAt) - at.getTime(), 1) } : undefined;
    },
  });
}

function dns01Option(answers: Dns01Answers | undefined): { dns01?: Dns01Answers } {
  return answers ? { dns01: answers } : {};
}

/** A certificate needs an order when none is served, the names changed, its renewal time came, or it expired. */
function needsOrder(cert: TlsCertificate, at: Date): boolean {
  const status = cert.status ?? {};
  if (!status.serial || !status.notAfter || !status.renewAt) return true;
  if (!sameNames(status.dnsNames ?? [], cert.spec.dnsNames)) return true;
  return at.getTime() >= Date.parse(status.renewAt) || at.getTime() >= Date.parse(status.notAfter);
}

/** Asks the CA's renewal information again when due; a moved window picks a new renewal time in it. */
async function refreshRenewal(cert: TlsCertificate, at: Date, acme: () => Promise<AcmeClient>, write: (cert: TlsCertificate, step: Step) => Promise<void>): Promise<TlsCertificateStatus> {
  const status = cert.status ?? {};
  let next: TlsCertificateStatus = { ...status, state: 'Issued' };
  if (status.certId && status.renewalCheckAt && Date.parse(status.renewalCheckAt) <= at.getTime()) {
    const answer = await renewalWindow(await acme(), status.certId, at);
    const window = answer?.window;
    if (window) {
      const moved = window.start.toISOString() !== status.renewalWindow?.start || window.end.toISOString() !== status.renewalWindow?.end;
      next = {
        ...next,
        renewalWindow: { start: window.start.toISOString(), end: window.end.toISOString() },
        ...(moved ? { renewAt: renewalTime(window, at).toISOString() } : {}),
      };
    }
    if (answer) next = { ...next, renewalCheckAt: answer.recheckAt.toISOString() };
    else delete next.renewalCheckAt;
  }
  await write(cert, { status: next });
  return next;
}

/** Back when the renewal is due or the renewal information is to be asked again, whichever is first. */
function requeueAt(status: TlsCertificateStatus, at: Date): Result {
  const times = [status.renewAt, status.renewalCheckAt].filter((t): t is string => t !== undefined).map((t) => Date.parse(t));
  if (times.length === 0) return undefined;
  return { requeueAfter: Math.max(Math.min(...times) - at.getTime(), 1000) };
}

/** Ready: a valid certificate for every name is served. RenewalFailing: one is served, in its window, and its renewal failed. */
function withConditions(cert: TlsCertificate, status: TlsCertificateStatus, at: Date): TlsCertificateStatus {
  const generation = cert.metadata?.generation;
  const served = status.serial !== undefined && status.notAfter !== undefined && Date.parse(status.notAfter) > at.getTime();
  const covers = served && sameNames(status.dnsNames ?? [], cert.spec.dnsNames);
  const ready = covers
    ? { type: TlsCertificateConditions.Ready, status: 'True' as const, reason: 'Issued', message: `Served until ${status.notAfter}.` }
    : {
        type: TlsCertificateConditions.Ready,
        status: 'False' as const,
        reason: status.lastError?.reason ?? (status.order ? 'Issuing' : 'Pending'),
        message: status.lastError?.message ?? (status.order ? 'The certificate is being ordered.' : 'No certificate ordered yet.'),
      };
  let conditions = setCondition(status.conditions, ready, generation, at).conditions;
  const inWindow = served && status.renewalWindow !== undefined && Date.parse(status.renewalWindow.start) <= at.getTime();
  conditions = setCondition(
    conditions,
    inWindow && status.lastError
      ? {
          type: TlsCertificateConditions.RenewalFailing,
          status: 'True',
          reason: status.lastError.reason,
          message: `The certificate expires at ${status.notAfter} and its renewal failed: ${status.lastError.message}`,
        }
      : { type: TlsCertificateConditions.RenewalFailing, status: 'False', reason: 'NoFailure', message: 'No renewal is failing.' },
    generation,
    at,
  ).conditions;
  return { ...status, conditions, ...(generation !== undefined ? { observedGeneration: generation } : {}) };
}
