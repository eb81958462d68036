import { Type, type Static } from 'typebox';
import type { CustomResource, KindDescriptor } from '../kind-descriptor.ts';
import { Conditions, ObservedGeneration } from './conditions.ts';
import { CATEGORY } from './group-version.ts';
import { DnsLabel, DnsSubdomain, immutable } from './strings.ts';

/** Record types a project may publish. SOA and apex NS belong to the hosted zone itself. */
export const DnsRecordType = Type.Union(
  [Type.Literal('A'), Type.Literal('AAAA'), Type.Literal('CAA'), Type.Literal('CNAME'), Type.Literal('MX'), Type.Literal('NS'), Type.Literal('SRV'), Type.Literal('TXT')],
  { description: 'Record type.' },
);
export type DnsRecordType = Static<typeof DnsRecordType>;

/**
 * Set on records the platform writes for an app hostname (REST: owner kind `platform_app`,
 * `owner_resource_type=runtime_app`). Manual record edits through the API never touch these.
 */
export const DnsRecordOwner = Type.Object(
  {
    kind: Type.Literal('platform_app'),
    resourceType: Type.Literal('runtime_app'),
    resourceId: DnsLabel({ description: 'Name of the RuntimeApp.' }),
  },
  { description: 'Present on platform-owned records; absent on records written by users.' },
);

export const DnsRecordSpec = Type.Object({
  domainRef: Type.Object(
    { name: DnsSubdomain({ description: 'Name of the ProjectDomain in this namespace.' }) },
    { description: 'The project domain (zone) holding the record.', ...immutable('domainRef') },
  ),
  name: Type.String({
    minLength: 1,
    maxLength: 253,
    // Relative to the domain: '@' for the apex, labels with '_' allowed (_acme-challenge), '*' leftmost.
    pattern: '^(@|(\\*\\.)?[a-z0-9_]([-a-z0-9_]{0,61}[a-z0-9_])?(\\.[a-z0-9_]([-a-z0-9_]{0,61}[a-z0-9_])?)*|\\*)$',
    description: "Record name relative to the domain: '@' for the apex, for example www or _acme-challenge.app.",
  }),
  type: DnsRecordType,
  values: Type.Array(Type.String({ minLength: 1, maxLength: 4000, description: 'One value in zone-file syntax.' }), {
    minItems: 1,
    maxItems: 100,
    description: 'Values of the record set; the order is kept.',
    // What the API allows a record set (VALUES_CHARS_MAX), for one applied with kubectl too: the items' own bounds
    // alone let one object take 400 KB of etcd and of every cache.
    'x-kubernetes-validations': [{ rule: 'self.map(v, size(v)).sum() <= 32000', message: 'the values of a record set come to at most 32000 characters' }],
  }),
  ttl: Type.Optional(Type.Integer({ minimum: 1, maximum: 604800, format: 'int32', default: 300, description: 'Time to live in seconds.' })),
  owner: Type.Optional(DnsRecordOwner),
});
export type DnsRecordSpec = Static<typeof DnsRecordSpec>;

export const DnsRecordStatus = Type.Object({
  conditions: Type.Optional(Conditions),
  observedGeneration: Type.Optional(ObservedGeneration),
  fqdn: Type.Optional(Type.String({ maxLength: 253, description: 'Fully qualified name of the record set.' })),
});
export type DnsRecordStatus = Static<typeof DnsRecordStatus>;

/** Condition types of a DnsRecord. */
export const DnsRecordConditions = {
  /** The record set is in the zone as specified (False: DomainNotManaged while the domain is not delegated). */
  Ready: 'Ready',
} as const;

export type DnsRecord = CustomResource<'DnsRecord', DnsRecordSpec, DnsRecordStatus>;

/**
 * On DnsRecords of a domain with a zone: removed by the ProjectDomain controller once the record is out of
 * the zone, so a deleted record is gone from the cluster only when it is gone from DNS (and the API answers
 * a delete then).
 */
export const RECORD_FINALIZER = 'cloudwright.dev/dns-record';

/**
 * One record set in a ProjectDomain's zone; the name of the object is the REST record id. Records are
 * custom resources (not only rows at the DNS provider) so that GitOps users can declare them and so
 * that records written for an AppHostname are owned children that are garbage-collected with it.
 */
export const DnsRecordKind: KindDescriptor<'DnsRecord', typeof DnsRecordSpec, typeof DnsRecordStatus> = {
  kind: 'DnsRecord',
  plural: 'dnsrecords',
  singular: 'dnsrecord',
  shortNames: ['cwrecord'],
  scope: 'Namespaced',
  categories: [CATEGORY],
  description: 'A record set in a Cloudwright project domain.',
  spec: DnsRecordSpec,
  status: DnsRecordStatus,
  printerColumns: [
    { name: 'Domain', type: 'string', jsonPath: '.spec.domainRef.name', description: 'ProjectDomain.' },
    { name: 'Record', type: 'string', jsonPath: '.spec.name', description: 'Name relative to the domain.' },
    { name: 'Type', type: 'string', jsonPath: '.spec.type', description: 'Record type.' },
    { name: 'TTL', type: 'integer', jsonPath: '.spec.ttl', description: 'Time to live in seconds.' },
  ],
};
