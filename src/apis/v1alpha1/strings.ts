import { Type, type TSchemaOptions, type TString } from 'typebox';

// Patterns must mean the same in JavaScript (TypeBox validation in the API server) and in Go's RE2
// (kube-apiserver's OpenAPI validation): no look-around, no back-references. Lengths are spelled both
// as maxLength and inside the pattern where a per-label limit exists.

const LABEL = '[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?';

/** DNS-1123 label: what a namespace name, a Service name or one host label may be. */
export const DNS_LABEL_PATTERN = `^${LABEL}$`;

/** DNS-1123 subdomain: what Kubernetes accepts as a custom resource name. */
export const DNS_SUBDOMAIN_PATTERN = `^${LABEL}(\\.${LABEL})*$`;

/**
 * A fully qualified host name in lowercase, at least two labels, no trailing dot, no wildcard; the
 * last label starts with a letter so an IPv4 address is never mistaken for a host name.
 */
export const HOSTNAME_PATTERN = `^(${LABEL}\\.)+[a-z]([-a-z0-9]{0,61}[a-z0-9])?$`;

/** No control characters: names end up in terminals, logs and HTML. */
const PRINTABLE_PATTERN = '^[^\\x00-\\x1F\\x7F]*$';

/** Every field documents itself (`kubectl explain`); other schema options pass through. */
type Described = TSchemaOptions & { readonly description: string };

/** A DNS-1123 label (at most 63 characters). */
export function DnsLabel(options: Described): TString {
  return Type.String({ minLength: 1, maxLength: 63, pattern: DNS_LABEL_PATTERN, ...options });
}

/** A DNS-1123 subdomain (at most 253 characters): a reference to another object by name. */
export function DnsSubdomain(options: Described): TString {
  return Type.String({ minLength: 1, maxLength: 253, pattern: DNS_SUBDOMAIN_PATTERN, ...options });
}

/** A fully qualified, lowercase host or domain name. */
export function Hostname(options: Described): TString {
  return Type.String({ minLength: 3, maxLength: 253, pattern: HOSTNAME_PATTERN, ...options });
}

/** A human-readable name: free text without control characters. */
export function DisplayName(options: Described): TString {
  return Type.String({ minLength: 1, maxLength: 128, pattern: PRINTABLE_PATTERN, ...options });
}

/** Free text without control characters, up to `maxLength`. */
export function Text(options: Described & { readonly maxLength: number }): TString {
  return Type.String({ pattern: PRINTABLE_PATTERN, ...options });
}

/** An RFC 3339 timestamp (`metav1.Time` on the wire). */
export function Timestamp(options: Described): TString {
  return Type.String({ format: 'date-time', maxLength: 64, ...options });
}

/**
 * Options making a field immutable once set, enforced by the kube-apiserver (a CEL transition rule)
 * so that `kubectl apply` cannot change it either. Use on identity fields only: a rule is evaluated
 * when the field exists in both the old and the new object.
 */
export function immutable(field: string): { 'x-kubernetes-validations': { rule: string; message: string }[] } {
  return { 'x-kubernetes-validations': [{ rule: 'self == oldSelf', message: `${field} is immutable` }] };
}
