import { Type, type Static } from 'typebox';
import type { CustomResource, KindDescriptor } from '../kind-descriptor.ts';
import { Conditions, ObservedGeneration } from './conditions.ts';
import { CATEGORY } from './group-version.ts';
import { Hostname, immutable, Timestamp } from './strings.ts';

/** The only mode of a project domain: the platform hosts the zone, the owner delegates to it. */
export const ProjectDomainDnsMode = Type.Literal('zone_delegated', {
  default: 'zone_delegated',
  description: 'zone_delegated: the platform hosts a DNS zone and the owner delegates the domain to its nameservers.',
});

/** Where delegation stands; mirrors the REST `status` field. */
export const ProjectDomainState = Type.Union([Type.Literal('pending_delegation'), Type.Literal('managed'), Type.Literal('deleted')], {
  description: 'pending_delegation until the domain delegates to the zone, then managed (records unlocked); deleted once soft-deleted (zone and records gone, the object kept as history).',
});
export type ProjectDomainState = Static<typeof ProjectDomainState>;

export const ProjectDomainSpec = Type.Object({
  domain: Hostname({ description: 'The domain (apex) whose DNS the platform hosts.', ...immutable('domain') }),
  dnsMode: Type.Optional(ProjectDomainDnsMode),
  deleted: Type.Optional(
    Type.Boolean({
      description:
        'Soft delete: true removes the hosted zone and every record of the domain but keeps this object (its conditions and history) for audit. The same domain can then be added again as a new object. Cannot be set back to false.',
      'x-kubernetes-validations': [{ rule: 'self || !oldSelf', message: 'a deleted domain cannot be restored; add the domain again' }],
    }),
  ),
});
export type ProjectDomainSpec = Static<typeof ProjectDomainSpec>;

export const ProjectDomainStatus = Type.Object({
  conditions: Type.Optional(Conditions),
  observedGeneration: Type.Optional(ObservedGeneration),
  hostedZoneId: Type.Optional(Type.String({ minLength: 1, maxLength: 128, pattern: '^[A-Za-z0-9/_.-]+$', description: 'Hosted zone id at the DNS provider.' })),
  nameservers: Type.Optional(
    Type.Array(Hostname({ description: 'Nameserver host name.' }), {
      maxItems: 16,
      description: 'Nameservers of the zone: the owner sets these at the registrar.',
    }),
  ),
  state: Type.Optional(ProjectDomainState),
  lastCheckedAt: Type.Optional(Timestamp({ description: 'When delegation was last checked.' })),
  lastHandledDelegationCheck: Type.Optional(
    Type.String({
      maxLength: 64,
      description: 'The value of the cloudwright.dev/delegation-check-requested-at annotation the last check answered: a check was asked for and has run when the two are equal.',
    }),
  ),
  delegatedNameservers: Type.Optional(
    Type.Array(Hostname({ description: 'Nameserver host name.' }), {
      maxItems: 16,
      description: 'The nameservers the parent zone listed for the domain at the last check.',
    }),
  ),
  records: Type.Optional(Type.Integer({ minimum: 0, format: 'int32', description: 'DnsRecords of the domain in the zone as specified.' })),
  deletedAt: Type.Optional(Timestamp({ description: 'When the domain was soft-deleted.' })),
  delegatedAt: Type.Optional(
    Timestamp({
      description:
        'When a delegation check first found the domain delegated to its zone: from then on it holds its name. Until then it proves nothing: another project may add the name and takes it over by proving delegation to its own zone.',
    }),
  ),
  notDelegatedSince: Type.Optional(
    Timestamp({
      description:
        'When a delegation check first found the parent zone delegating the domain elsewhere (NotDelegated or NameserversMismatch) since it was last found delegated; unanswered checks leave it, a delegated answer clears it. Once a day old, with the last check answering so too, a domain delegated once no longer holds its name against another project.',
    }),
  ),
  lastCheckOutcome: Type.Optional(
    Type.String({
      maxLength: 64,
      pattern: '^[A-Z][A-Za-z]*$',
      description:
        'The outcome of the delegation check at lastCheckedAt (Delegated, NotDelegated, NameserversMismatch, Timeout …): unlike the Delegated condition, which an unanswered check leaves as it was.',
    }),
  ),
  zonesDeleted: Type.Optional(
    Type.Integer({
      minimum: 0,
      format: 'int32',
      description:
        'How many hosted zones of this domain were deleted while it stayed (its name refused or taken): part of the caller reference of the next zone, which the provider never accepts twice.',
    }),
  ),
});
export type ProjectDomainStatus = Static<typeof ProjectDomainStatus>;

/**
 * Annotation asking for a delegation check now (as Flux's `reconcile.fluxcd.io/requestedAt`): any new value,
 * such as the time, makes the controller check the delegation at once and echo the value in
 * `status.lastHandledDelegationCheck`. The API's delegation-check route sets it; so can `kubectl annotate`.
 */
export const DELEGATION_CHECK_ANNOTATION = 'cloudwright.dev/delegation-check-requested-at';

/**
 * On ProjectDomains the API created. The history of soft-deleted domains is pruned among those only: an
 * object a GitOps tool keeps in git is the user's, and deleting it would have the tool create it again.
 */
export const CREATED_BY_API_ANNOTATION = 'cloudwright.dev/created-by-api';

/** On ProjectDomains whose hosted zone may exist: removed by the controller once the zone is deleted. */
export const ZONE_FINALIZER = 'cloudwright.dev/dns-zone';

/** Condition types of a ProjectDomain. */
export const ProjectDomainConditions = {
  /** The hosted zone exists and status.nameservers are its nameservers. */
  ZoneReady: 'ZoneReady',
  /** The parent zone's authoritative servers delegate the domain to exactly those nameservers. */
  Delegated: 'Delegated',
  /** The DnsRecords of the domain are in the zone (False: held while not delegated, conflicts, provider errors). */
  RecordsApplied: 'RecordsApplied',
  /** ZoneReady, Delegated and RecordsApplied: state is managed and the zone holds what was asked. */
  Ready: 'Ready',
} as const;

/**
 * Reasons of a ProjectDomain's conditions (and of its DnsRecords' Ready), besides the delegation check's own
 * (`DelegationReason`: Delegated, NotDelegated, NameserversMismatch, Timeout …), which `Delegated` carries.
 */
export const ProjectDomainReasons = {
  ZoneCreated: 'ZoneCreated',
  ZoneNotReady: 'ZoneNotReady',
  ZoneDeletionFailed: 'ZoneDeletionFailed',
  InvalidDomain: 'InvalidDomain',
  DomainTaken: 'DomainTaken',
  /** Delegated once, then taken over by another project that proved a delegation to its zone after this one's lapsed. */
  DomainTakenOver: 'DomainTakenOver',
  /** The platform's base domain, or a name in or above it: never a project domain. */
  ReservedDomain: 'ReservedDomain',
  /** Under a domain another project holds: only that project may add names under it. */
  UnderAnotherProject: 'UnderAnotherProject',
  /** The project has as many domains as it may (older ones first): no zone is created for this one. */
  TooManyDomains: 'TooManyDomains',
  NotChecked: 'NotChecked',
  /** A managed domain's delegation checks went unanswered for a day: it counts as not delegated. */
  Unverifiable: 'Unverifiable',
  PendingDelegation: 'PendingDelegation',
  Managed: 'Managed',
  Applied: 'Applied',
  DelegationPending: 'DelegationPending',
  RecordConflicts: 'RecordConflicts',
  NotWritten: 'NotWritten',
  Deleted: 'Deleted',
  /** The DNS provider's errors, one per `DnsProviderErrorCode`, with the provider's fixed message. */
  ProviderUnavailable: 'ProviderUnavailable',
  ProviderThrottled: 'ProviderThrottled',
  ProviderZoneNotFound: 'ProviderZoneNotFound',
  ProviderNotOwned: 'ProviderNotOwned',
  ProviderRejected: 'ProviderRejected',
  ProviderLimitExceeded: 'ProviderLimitExceeded',
  ProviderAccessDenied: 'ProviderAccessDenied',
  ProviderInvalid: 'ProviderInvalid',
} as const;

export type ProjectDomain = CustomResource<'ProjectDomain', ProjectDomainSpec, ProjectDomainStatus>;

/** A domain whose DNS zone the platform hosts for a project, in the project's namespace. */
export const ProjectDomainKind: KindDescriptor<'ProjectDomain', typeof ProjectDomainSpec, typeof ProjectDomainStatus> = {
  kind: 'ProjectDomain',
  plural: 'projectdomains',
  singular: 'projectdomain',
  shortNames: ['cwdomain'],
  scope: 'Namespaced',
  categories: [CATEGORY],
  description: 'A Cloudwright project domain: a DNS zone hosted by the platform and delegated by its owner.',
  spec: ProjectDomainSpec,
  status: ProjectDomainStatus,
  printerColumns: [
    { name: 'Domain', type: 'string', jsonPath: '.spec.domain', description: 'The domain.' },
    { name: 'State', type: 'string', jsonPath: '.status.state', description: 'pending_delegation, managed or deleted.' },
    { name: 'Records', type: 'integer', jsonPath: '.status.records', description: 'Records applied in the zone.' },
    { name: 'Zone', type: 'string', jsonPath: '.status.hostedZoneId', description: 'Hosted zone id.', priority: 1 },
    {
      name: 'Last Checked',
      type: 'date',
      jsonPath: '.status.lastCheckedAt',
      description: 'Last delegation check.',
      priority: 1,
    },
  ],
};
