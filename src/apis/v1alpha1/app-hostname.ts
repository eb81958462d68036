import { Type, type Static } from 'typebox';
import type { CustomResource, KindDescriptor } from '../kind-descriptor.ts';
import { Conditions, ObservedGeneration } from './conditions.ts';
import { CATEGORY } from './group-version.ts';
import { DnsLabel, DnsSubdomain, Hostname, immutable, Timestamp } from './strings.ts';

/** Who publishes the DNS records of a hostname. */
export const HostnameDnsMode = Type.Union([Type.Literal('external_records'), Type.Literal('managed_project_domain')], {
  default: 'external_records',
  description:
    'external_records: the owner publishes status.dnsRecords at their DNS provider. managed_project_domain: the platform writes them into the managed ProjectDomain containing the hostname.',
});
export type HostnameDnsMode = Static<typeof HostnameDnsMode>;

/** A DNS record the hostname needs, as the REST attach result returns it. */
export const RequiredDnsRecord = Type.Object({
  recordType: Type.String({ minLength: 1, maxLength: 16, pattern: '^[A-Z0-9]+$', description: 'For example CNAME or TXT.' }),
  name: Type.String({ minLength: 1, maxLength: 253, description: 'Fully qualified record name.' }),
  value: Type.String({ minLength: 1, maxLength: 4000, description: 'Record value, published exactly as given.' }),
});
export type RequiredDnsRecord = Static<typeof RequiredDnsRecord>;

export const AppHostnameSpec = Type.Object({
  appRef: Type.Object({ name: DnsLabel({ description: 'Name of the RuntimeApp in this namespace.' }) }, { description: 'The app to serve on the hostname.' }),
  hostname: Hostname({ description: 'Host name to attach.', ...immutable('hostname') }),
  dnsMode: Type.Optional(HostnameDnsMode),
  finalize: Type.Optional(
    Type.Boolean({
      description:
        'Activate the hostname once its DNS records are live (external_records: looked up through the platform resolver; managed_project_domain: applied to the zone): the controller verifies them, re-checking while they are not, and then serves the app on the hostname. The finalize route sets it.',
    }),
  ),
});
export type AppHostnameSpec = Static<typeof AppHostnameSpec>;

export const AppHostnameStatus = Type.Object({
  conditions: Type.Optional(Conditions),
  observedGeneration: Type.Optional(ObservedGeneration),
  dnsRecords: Type.Optional(
    Type.Array(RequiredDnsRecord, {
      maxItems: 16,
      description: 'Records that must exist: the CNAME to the runtime plus any certificate validation records.',
    }),
  ),
  projectDomain: Type.Optional(DnsSubdomain({ description: 'managed_project_domain: the ProjectDomain the records are written to.' })),
  verificationToken: Type.Optional(
    Type.String({
      minLength: 16,
      maxLength: 64,
      pattern: '^[a-z0-9]+$',
      description: 'external_records: the ownership challenge published as TXT at _cloudwright.<hostname> (not a secret).',
    }),
  ),
  lastVerifiedAt: Type.Optional(Timestamp({ description: 'When the DNS records were last verified for finalize.' })),
  lastHandledVerification: Type.Optional(
    Type.String({
      maxLength: 64,
      description: 'The value of the cloudwright.dev/verify-requested-at annotation the last verification answered.',
    }),
  ),
  activatedAt: Type.Optional(Timestamp({ description: 'When finalize activated the hostname: from then on the app is served on it.' })),
  state: Type.Optional(
    Type.Union([Type.Literal('pending'), Type.Literal('active')], {
      description: 'pending until finalize has verified the DNS records, then active (served).',
    }),
  ),
});
export type AppHostnameStatus = Static<typeof AppHostnameStatus>;

/**
 * Annotation asking for the DNS records of a hostname being finalized to be verified now (any new value, such
 * as the time), rather than at the next scheduled re-check; echoed in `status.lastHandledVerification`. The
 * finalize route sets it together with `spec.finalize`.
 */
export const VERIFY_ANNOTATION = 'cloudwright.dev/verify-requested-at';

/** Condition types of an AppHostname. */
export const AppHostnameConditions = {
  /** The app is served on the hostname. */
  Ready: 'Ready',
  /** The runtime accepted the hostname for the app. */
  RuntimeAttached: 'RuntimeAttached',
  /** The records in status.dnsRecords exist (managed mode: written; False with a reason when writing failed). */
  DnsReady: 'DnsReady',
} as const;

/** Reasons of an AppHostname's conditions. */
export const HostnameReasons = {
  /** RuntimeAttached: the app exists; or not. */
  Attached: 'Attached',
  AppNotFound: 'AppNotFound',
  /** Ready: the app is served on the hostname. */
  Active: 'Active',
  /** Ready: no finalize asked for yet. */
  AwaitingFinalize: 'AwaitingFinalize',
  /** Ready: finalize asked for, the records not verified yet. */
  Verifying: 'Verifying',
  /** Ready: managed records not applied (DnsReady says why). */
  DnsNotApplied: 'DnsNotApplied',
  /** DnsReady: managed records on their way to the zone. */
  Writing: 'Writing',
  /** DnsReady: managed records in the zone; external records found through the resolver. */
  RecordsApplied: 'RecordsApplied',
  RecordsVerified: 'RecordsVerified',
  /** managed: no managed project domain holds the hostname (none, or only ones pending delegation). */
  DomainNotManaged: 'DomainNotManaged',
  /** managed: the project domain the records were written to was deleted. */
  DomainGone: 'DomainGone',
  /** An apex hostname, and the runtime has no addresses to point A/AAAA records at. */
  NoRuntimeTarget: 'NoRuntimeTarget',
  /** managed: the records are not in the zone yet. */
  RecordsNotApplied: 'RecordsNotApplied',
  /** managed: the zone refused the records, or the DNS provider failed; the platform retries. */
  ProviderError: 'ProviderError',
  /** external: the resolver does not answer the records as listed. */
  RecordsNotFound: 'RecordsNotFound',
  /** The app is served on as many host names as it may have: activating this one would pass the limit. */
  TooManyHostnames: 'TooManyHostnames',
  /** Another project verified the hostname first and serves it (its HostnameClaim holds the name). */
  HostnameTaken: 'HostnameTaken',
} as const;

export type AppHostname = CustomResource<'AppHostname', AppHostnameSpec, AppHostnameStatus>;

/** A custom host name attached to a RuntimeApp, in the app's namespace. */
export const AppHostnameKind: KindDescriptor<'AppHostname', typeof AppHostnameSpec, typeof AppHostnameStatus> = {
  kind: 'AppHostname',
  plural: 'apphostnames',
  singular: 'apphostname',
  shortNames: ['cwhost'],
  scope: 'Namespaced',
  categories: [CATEGORY],
  description: 'A custom host name attached to a Cloudwright runtime app.',
  // One binding per host name and project, found (and its claim released) by the name.
  objectRules: [{ rule: 'self.metadata.name == self.spec.hostname', message: 'an AppHostname is named after its hostname' }],
  spec: AppHostnameSpec,
  status: AppHostnameStatus,
  printerColumns: [
    { name: 'Hostname', type: 'string', jsonPath: '.spec.hostname', description: 'Attached host name.' },
    { name: 'App', type: 'string', jsonPath: '.spec.appRef.name', description: 'RuntimeApp served.' },
    { name: 'DNS Mode', type: 'string', jsonPath: '.spec.dnsMode', description: 'Who publishes the records.' },
    { name: 'State', type: 'string', jsonPath: '.status.state', description: 'pending or active.' },
    { name: 'Domain', type: 'string', jsonPath: '.status.projectDomain', description: 'ProjectDomain holding the records.', priority: 1 },
  ],
};
