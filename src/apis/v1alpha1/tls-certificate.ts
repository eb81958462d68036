import { Type, type Static } from 'typebox';
import type { CustomResource, KindDescriptor } from '../kind-descriptor.ts';
import { Conditions, ObservedGeneration } from './conditions.ts';
import { CATEGORY } from './group-version.ts';
import { DnsSubdomain, HOSTNAME_PATTERN, Text, Timestamp } from './strings.ts';

/** Most names one certificate covers (Let's Encrypt allows 100). */
export const MAX_CERTIFICATE_NAMES = 100;

/** A host name, or a wildcard `*.<host name>` (one label, leftmost, as ACME allows). */
const CertificateName = Type.String({
  minLength: 3,
  maxLength: 253,
  pattern: `^(\\*\\.)?${HOSTNAME_PATTERN.slice(1)}`,
  description: 'A host name, or *.<host name> for a wildcard (DNS-01 only).',
});

/** How the CA checks that the platform controls the names. */
export const TlsChallengeType = Type.Union([Type.Literal('http-01'), Type.Literal('dns-01')], {
  default: 'http-01',
  description: 'http-01: cw-runtime answers the CA on port 80 of each name (the name must point at the runtime). dns-01: a TXT record in the project domain of spec.domainRef (wildcards need it).',
});
export type TlsChallengeType = Static<typeof TlsChallengeType>;

export const TlsCertificateSpec = Type.Object({
  dnsNames: Type.Array(CertificateName, {
    minItems: 1,
    maxItems: MAX_CERTIFICATE_NAMES,
    description: "Names the certificate covers; each must be the project's to serve (an active AppHostname, or inside a managed ProjectDomain).",
  }),
  challenge: Type.Optional(TlsChallengeType),
  domainRef: Type.Optional(
    Type.Object({ name: DnsSubdomain({ description: 'Name of the ProjectDomain in this namespace.' }) }, { description: 'dns-01: the project domain whose zone gets the validation records.' }),
  ),
  profile: Type.Optional(Type.String({ minLength: 1, maxLength: 64, pattern: '^[a-zA-Z0-9._-]+$', description: 'The ACME profile to ask for, when the CA offers profiles.' })),
});
export type TlsCertificateSpec = Static<typeof TlsCertificateSpec>;

/** Where a certificate is in its life. */
export const TlsCertificateState = Type.Union([Type.Literal('Pending'), Type.Literal('Issuing'), Type.Literal('Issued'), Type.Literal('Renewing'), Type.Literal('Failed')], {
  description:
    'Pending: not ordered yet (or waiting for its names to be the project’s). Issuing: an order is in progress. Issued: a valid certificate is served. Renewing: served, and a replacement is being ordered. Failed: no certificate, and the last order failed (see lastError, nextAttemptAt).',
});
export type TlsCertificateState = Static<typeof TlsCertificateState>;

/** An HTTP-01 challenge cw-runtime answers: public values by design (RFC 8555 §8.3), not secrets. */
export const Http01Challenge = Type.Object({
  dnsName: Type.String({ minLength: 3, maxLength: 253, description: 'The name being validated.' }),
  token: Type.String({ minLength: 1, maxLength: 128, pattern: '^[A-Za-z0-9_-]+$', description: 'The path segment after /.well-known/acme-challenge/.' }),
  keyAuthorization: Type.String({ minLength: 1, maxLength: 256, pattern: '^[A-Za-z0-9_.-]+$', description: 'The body to answer with.' }),
});
export type Http01Challenge = Static<typeof Http01Challenge>;

export const TlsCertificateStatus = Type.Object({
  conditions: Type.Optional(Conditions),
  observedGeneration: Type.Optional(ObservedGeneration),
  state: Type.Optional(TlsCertificateState),
  dnsNames: Type.Optional(Type.Array(Type.String({ maxLength: 253 }), { maxItems: MAX_CERTIFICATE_NAMES, description: 'The names the served certificate covers.' })),
  serial: Type.Optional(Type.String({ maxLength: 64, pattern: '^[0-9a-f]+$', description: 'Serial number (hex) of the served certificate; cw-runtime loads its key and chain by it.' })),
  notBefore: Type.Optional(Timestamp({ description: 'The served certificate is valid from.' })),
  notAfter: Type.Optional(Timestamp({ description: 'The served certificate expires at.' })),
  issuer: Type.Optional(Text({ maxLength: 256, description: 'Common name (or organisation) of the issuing CA.' })),
  certId: Type.Optional(Type.String({ maxLength: 512, description: 'The RFC 9773 certificate identifier (renewal info, `replaces`).' })),
  renewalWindow: Type.Optional(
    Type.Object(
      { start: Timestamp({ description: 'Window start.' }), end: Timestamp({ description: 'Window end.' }) },
      { description: 'When to renew: from the CA’s renewal information where it offers it, else the last third of the lifetime.' },
    ),
  ),
  renewAt: Type.Optional(Timestamp({ description: 'The moment in the renewal window chosen for the renewal.' })),
  renewalCheckAt: Type.Optional(Timestamp({ description: 'When the CA’s renewal information is asked again (it may move the window).' })),
  order: Type.Optional(
    Type.Object(
      {
        url: Type.String({ maxLength: 2048, description: 'The ACME order being worked on (resumed after a restart).' }),
        dnsNames: Type.Array(Type.String({ maxLength: 253 }), { maxItems: MAX_CERTIFICATE_NAMES, description: 'The names ordered.' }),
        expires: Type.Optional(Timestamp({ description: 'When the CA forgets the order.' })),
        responded: Type.Optional(Type.Array(Type.String({ maxLength: 2048 }), { maxItems: MAX_CERTIFICATE_NAMES, description: 'Challenges answered already.' })),
      },
      { description: 'The order in progress, if any.' },
    ),
  ),
  http01: Type.Optional(Type.Array(Http01Challenge, { maxItems: MAX_CERTIFICATE_NAMES, description: 'HTTP-01 challenges cw-runtime answers while the order is in progress.' })),
  lastError: Type.Optional(
    Type.Object(
      {
        reason: Type.String({ maxLength: 64, description: 'CamelCase: CAAForbidden, DnsNotPointingHere, RateLimited, ChallengeFailed, CAUnavailable, NameNotHeld, …' }),
        message: Text({ maxLength: 1024, description: 'What went wrong and what to do.' }),
        at: Timestamp({ description: 'When.' }),
      },
      { description: 'The last failure of an order, kept until a certificate is issued.' },
    ),
  ),
  failures: Type.Optional(Type.Integer({ minimum: 0, maximum: 1000, description: 'Orders failed in a row: the back-off doubles with each.' })),
  nextAttemptAt: Type.Optional(Timestamp({ description: 'After a failure: when the next order is placed.' })),
});
export type TlsCertificateStatus = Static<typeof TlsCertificateStatus>;

/** Condition types of a TlsCertificate. */
export const TlsCertificateConditions = {
  /** A valid certificate for every name in spec.dnsNames is served. */
  Ready: 'Ready',
  /** The served certificate is within its renewal window (or expired) and its renewal is failing. */
  RenewalFailing: 'RenewalFailing',
} as const;

/** Removed by the operator once the certificate is revoked and its key deleted from the bucket. */
export const TLS_CERTIFICATE_FINALIZER = 'cloudwright.dev/tls-certificate';

export type TlsCertificate = CustomResource<'TlsCertificate', TlsCertificateSpec, TlsCertificateStatus>;

/**
 * A certificate the operator obtains and renews from the installation's ACME CA, for names the project
 * serves; cw-runtime serves it by SNI. Its key and chain are in the artifact bucket, encrypted, never in the
 * object. Not named `Certificate`, so it never clashes with cert-manager's kind in `kubectl get`.
 */
export const TlsCertificateKind: KindDescriptor<'TlsCertificate', typeof TlsCertificateSpec, typeof TlsCertificateStatus> = {
  kind: 'TlsCertificate',
  plural: 'tlscertificates',
  singular: 'tlscertificate',
  shortNames: ['cwcert'],
  scope: 'Namespaced',
  categories: [CATEGORY],
  description: 'A TLS certificate Cloudwright obtains over ACME and serves by SNI.',
  objectRules: [{ rule: "!self.spec.dnsNames.exists(n, n.startsWith('*.')) || (has(self.spec.challenge) && self.spec.challenge == 'dns-01')", message: 'a wildcard name needs challenge dns-01' }],
  spec: TlsCertificateSpec,
  status: TlsCertificateStatus,
  printerColumns: [
    { name: 'State', type: 'string', jsonPath: '.status.state', description: 'Pending, Issuing, Issued, Renewing or Failed.' },
    // A string: kubectl shows a date column as an age, and a time to come as <invalid>.
    { name: 'Not After', type: 'string', jsonPath: '.status.notAfter', description: 'Expiry of the served certificate.' },
    { name: 'Issuer', type: 'string', jsonPath: '.status.issuer', description: 'Issuing CA.', priority: 1 },
    { name: 'Next Attempt', type: 'string', jsonPath: '.status.nextAttemptAt', description: 'After a failure: the next order.', priority: 1 },
  ],
};
