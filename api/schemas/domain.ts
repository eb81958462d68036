import { Type } from 'typebox';
import { DNS_SUBDOMAIN_PATTERN } from '../../src/apis/v1alpha1/strings.ts';
import { TTL_MAX, TTL_MIN, VALUES_MAX } from '../../src/dns/records.ts';
import { DOMAIN_MAX_LENGTH } from '../../src/dns/domain-name.ts';
import { AppId } from './app.ts';
import { ProjectId } from './project.ts';

// Response schemas avoid `anyOf` (see project.ts): enums and optional fields instead.
const enumOf = <T extends string>(values: readonly T[], description: string) => Type.Unsafe<T>({ type: 'string', enum: [...values], description });

const nullableString = (description: string, format?: string) => Type.Unsafe<string | null>({ type: ['string', 'null'], ...(format ? { format } : {}), description });

/** Where the certificate of a host name or a domain stands (src/platform/domains/tls-view.ts). */
export const Tls = Type.Object(
  {
    status: enumOf(
      ['none', 'pending', 'issuing', 'issued', 'renewing', 'failed'],
      'none: no certificate exists for it (this install issues none, or none is ordered yet: a host name gets one once active, a domain once managed). pending: waiting to be ordered. issuing: an order is in progress. issued: a valid certificate is served. renewing: served, and its replacement is being ordered. failed: no certificate is served and the last order failed (last_error says why, next_attempt_at when the platform tries again).',
    ),
    not_after: nullableString('When the certificate served expires; null while none is served.', 'date-time'),
    issuer: nullableString('The certificate authority that issued the certificate served; null while none is served.'),
    last_error: Type.Unsafe<{ reason: string; message: string; at: string } | null>({
      type: ['object', 'null'],
      properties: {
        reason: { type: 'string', description: 'CamelCase: CAAForbidden, DnsNotPointingHere, RateLimited, ChallengeFailed, CAUnavailable, NameNotHeld, …' },
        message: { type: 'string', description: 'What went wrong and what to do.' },
        at: { type: 'string', format: 'date-time', description: 'When the order failed.' },
      },
      required: ['reason', 'message', 'at'],
      description: 'The last failed order, kept until a certificate is issued (also while a renewal keeps failing and the old certificate is still served); null otherwise.',
    }),
    next_attempt_at: nullableString('After a failed order: when the platform places the next one (it backs off, doubling); null otherwise.', 'date-time'),
  },
  {
    description:
      'The TLS certificate the platform obtains and renews for the name and serves by SNI: for a hostname once it is active, for a project domain (the domain and *.domain) once it is managed.',
  },
);

/**
 * A domain or host name as typed (an internationalised one too): checked by the handler, which says exactly what
 * is wrong with it. Control characters (C0, DEL, C1) and bidirectional overrides never are a name's, and would
 * reach the audit trail as the resource a refused request named.
 */
const DomainName = (description: string, maxLength = 253) => Type.String({ minLength: 1, maxLength, pattern: '^[^\\x00-\\x20\\x7F-\\x9F\\u202A-\\u202E\\u2066-\\u2069/]+$', description });

export const DomainParams = Type.Object({ projectId: ProjectId, domain: DomainName('The project domain, for example example.com.') }, { additionalProperties: false });
export const RecordParams = Type.Object(
  {
    projectId: ProjectId,
    domain: DomainName('The project domain.'),
    recordId: Type.String({ minLength: 1, maxLength: 253, pattern: DNS_SUBDOMAIN_PATTERN, description: 'Record id, as the record’s `record_id`.' }),
  },
  { additionalProperties: false },
);
export const HostnameParams = Type.Object({ projectId: ProjectId, appId: AppId, domain: DomainName('The hostname attached to the app.') }, { additionalProperties: false });

export const DomainBody = Type.Object(
  {
    domain: DomainName('Domain to host, for example example.com: not a public suffix, not an IP address, at most 200 characters.', DOMAIN_MAX_LENGTH),
    dns_mode: Type.Optional(enumOf(['zone_delegated'], 'zone_delegated (the only mode, and the default): the platform hosts a DNS zone and the owner delegates the domain to its nameservers.')),
  },
  { additionalProperties: false },
);

export const Domain = Type.Object(
  {
    domain: Type.String({ description: 'Domain name.' }),
    dns_mode: enumOf(['zone_delegated'], 'Always zone_delegated.'),
    status: enumOf(
      ['pending_delegation', 'managed', 'deleted'],
      'pending_delegation until the parent zone delegates to the nameservers (also while its zone is being created: status_reason Creating, no nameservers yet), then managed (records can be written); deleted only in the answer to DELETE.',
    ),
    hosted_zone_id: Type.String({ description: 'Hosted zone at the DNS provider (an infrastructure id, for debugging); empty until the zone exists.' }),
    nameservers: Type.Array(Type.String(), { description: 'Nameservers to set at the registrar.' }),
    status_reason: Type.String({ description: 'Why the domain is or is not managed, as a CamelCase reason (for example PendingDelegation, NameserversMismatch, Managed).' }),
    status_message: Type.String({ description: 'The same in words, with what to do next.' }),
    last_checked_at: Type.Optional(Type.String({ format: 'date-time', description: 'Last delegation check.' })),
    created_at: Type.String({ format: 'date-time', description: 'When the domain was added.' }),
    deleted_at: Type.Optional(Type.String({ format: 'date-time', description: 'When the domain was deleted.' })),
    tls: Tls,
  },
  { description: 'A project domain.' },
);

const RecordValue = Type.String({ minLength: 1, maxLength: 4000, description: 'One value in zone-file syntax, for example 192.0.2.1 or "10 mail.example.com".' });

export const RecordBody = Type.Object(
  {
    name: Type.Optional(Type.String({ minLength: 1, maxLength: 253, description: 'Name relative to the domain (`www`, `@` for the apex) or fully qualified inside it. Required on create.' })),
    type: Type.Optional(Type.String({ minLength: 1, maxLength: 10, pattern: '^[A-Za-z]+$', description: 'Record type, any case: A, AAAA, CAA, CNAME, MX, NS, SRV or TXT. Required on create.' })),
    values: Type.Optional(Type.Array(RecordValue, { minItems: 1, maxItems: VALUES_MAX, description: 'The values; exactly one for CNAME. On update they replace the stored values.' })),
    value: Type.Optional(RecordValue),
    ttl: Type.Optional(Type.Integer({ minimum: TTL_MIN, maximum: TTL_MAX, description: `Time to live in seconds (${TTL_MIN}-${TTL_MAX}); default 300.` })),
  },
  { additionalProperties: false, description: 'A record set. `value` is shorthand for one value; give `value` or `values`, not both.' },
);

export const DnsRecord = Type.Object(
  {
    record_id: Type.String({ description: 'Record id.' }),
    name: Type.String({ description: 'Name relative to the domain; `@` is the apex.' }),
    fqdn: Type.String({ description: 'Fully qualified name.' }),
    type: Type.String({ description: 'Record type.' }),
    values: Type.Array(Type.String(), { description: 'Values in canonical form.' }),
    ttl: Type.Integer({ description: 'Time to live in seconds.' }),
    owner: Type.Optional(
      Type.Object(
        {
          kind: enumOf(['platform_app'], 'platform_app: written by the platform for an app hostname.'),
          owner_resource_type: enumOf(['runtime_app'], 'runtime_app.'),
          owner_resource_id: Type.String({ description: 'The app id.' }),
        },
        { description: 'Present on platform-owned records only; those cannot be changed or deleted by hand.' },
      ),
    ),
    status: enumOf(['applied', 'pending', 'failed'], 'applied: in the zone; pending: waiting for the delegation or the DNS provider; failed: refused (see status_message).'),
    status_reason: Type.String({ description: 'CamelCase reason of the status.' }),
    status_message: Type.String({ description: 'The status in words.' }),
    created_at: Type.String({ format: 'date-time', description: 'When the record was created.' }),
  },
  { description: 'A DNS record set of a project domain.' },
);

export const HostnameBody = Type.Object(
  {
    domain: DomainName('The hostname to attach, for example www.example.com.'),
    dns_mode: Type.Optional(
      enumOf(
        ['external_records', 'managed_project_domain'],
        'external_records (default): you publish dns_records yourself. managed_project_domain: the platform writes the records into the managed project domain holding the hostname.',
      ),
    ),
  },
  { additionalProperties: false },
);

const RequiredRecord = Type.Object({
  record_type: Type.String({ description: 'For example CNAME or TXT.' }),
  name: Type.String({ description: 'Fully qualified record name.' }),
  value: Type.String({ description: 'Record value, to publish exactly as given.' }),
});

export const Hostname = Type.Object(
  {
    domain: Type.String({ description: 'Hostname.' }),
    dns_mode: enumOf(['external_records', 'managed_project_domain'], 'Who publishes the records.'),
    app_id: Type.String({ description: 'App served on the hostname.' }),
    status: enumOf(
      ['pending', 'active', 'deleting'],
      'pending until finalize verified the records, then active: the app is served on the hostname; deleting only in the 202 answer to DELETE (detached, its records still leaving the zone).',
    ),
    status_reason: Type.String({ description: 'CamelCase reason (Attaching, AwaitingFinalize, DnsNotApplied, Active …).' }),
    status_message: Type.String({ description: 'What to do next, in words.' }),
    dns_records: Type.Optional(Type.Array(RequiredRecord, { description: 'external_records: the CNAME to the runtime and the ownership TXT challenge to publish.' })),
    managed_dns: Type.Optional(
      Type.Object(
        {
          project_domain: Type.String({ description: 'The managed project domain holding the hostname.' }),
          status: enumOf(
            ['applied', 'pending', 'failed'],
            'applied: the records are in the zone; pending: they are being written (the platform has not answered yet); failed: writing them failed (repeat the request).',
          ),
          records: Type.Optional(Type.Array(RequiredRecord, { description: 'The platform-owned records, when applied.' })),
        },
        { description: 'managed_project_domain: how applying the records went.' },
      ),
    ),
    created_at: Type.String({ format: 'date-time', description: 'When the hostname was attached.' }),
    tls: Tls,
  },
  { description: 'An app hostname: the attach result, and an entry of the app’s hostname list.' },
);
