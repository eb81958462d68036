// Validation of a project domain name (the apex of a hosted zone). Pure; the API validates before it writes a
// ProjectDomain, and the controller validates again because a GitOps user can apply any string the CRD's
// pattern lets through.
import { isIP } from 'node:net';
import { PublicError } from '../errors.ts';
import { asciiName } from './names.ts';
import { PUBLIC_SUFFIXES, RESERVED_SUFFIXES } from './public-suffixes.ts';

/**
 * Longest project domain we accept. DNS allows 253 characters, but records live below the domain, and each
 * owned record carries an ownership marker one label longer (see ownership.ts), so we leave room for them.
 */
export const DOMAIN_MAX_LENGTH = 200;

/** Why a domain name was refused: CamelCase, stable, usable as a condition reason. */
export type DomainNameProblem = 'Empty' | 'TooLong' | 'IpAddress' | 'InvalidLabel' | 'SingleLabel' | 'NumericTopLevel' | 'PublicSuffix' | 'Reserved';

export type DomainNameCheck = { readonly ok: true; readonly domain: string } | { readonly ok: false; readonly problem: DomainNameProblem; readonly message: string };

const LABEL = /^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/;

/** True when `name` (normalized) is a public suffix: a top-level domain or a listed multi-label suffix. */
export function isPublicSuffix(name: string): boolean {
  return !name.includes('.') || PUBLIC_SUFFIXES.has(name);
}

/**
 * Checks and normalizes a domain name: trims, lowercases, drops one trailing dot and converts an
 * internationalized name to its ASCII (punycode) form, then refuses IP addresses, names longer than
 * `DOMAIN_MAX_LENGTH`, labels that are not letters, digits and inner hyphens, single-label names, public
 * suffixes (`com`, `co.uk`, `github.io` …) and reserved names (`localhost`, `*.local`, `*.arpa` …).
 */
export function checkDomainName(input: string): DomainNameCheck {
  const refuse = (problem: DomainNameProblem, message: string): DomainNameCheck => ({ ok: false, problem, message });
  let name = input.trim();
  if (name.endsWith('.')) name = name.slice(0, -1);
  if (name === '') return refuse('Empty', 'domain is required');
  const shown = JSON.stringify(input.length > 80 ? `${input.slice(0, 80)}…` : input);
  const bare = name.startsWith('[') && name.endsWith(']') ? name.slice(1, -1) : name;
  if (isIP(bare) !== 0) return refuse('IpAddress', `domain ${shown} is an IP address; a domain name is required`);
  const ascii = asciiName(name);
  if (ascii === '') return refuse('InvalidLabel', `domain ${shown} is not a valid domain name`);
  if (ascii.length > DOMAIN_MAX_LENGTH) {
    return refuse('TooLong', `domain is ${ascii.length} characters long; at most ${DOMAIN_MAX_LENGTH} are allowed`);
  }
  const labels = ascii.split('.');
  for (const label of labels) {
    if (label === '') return refuse('InvalidLabel', `domain ${shown} has an empty label`);
    if (label.length > 63) return refuse('InvalidLabel', `domain ${shown} has a label longer than 63 characters`);
    if (!LABEL.test(label)) {
      return refuse('InvalidLabel', `domain ${shown} has an invalid label "${label}": use letters, digits and hyphens, not at the start or end of a label`);
    }
  }
  const tld = labels[labels.length - 1] ?? '';
  if (/^[0-9]+$/.test(tld)) return refuse('NumericTopLevel', `domain ${shown} has a numeric top-level label`);
  const reserved = RESERVED_SUFFIXES.find((suffix) => ascii === suffix || ascii.endsWith(`.${suffix}`));
  if (reserved) return refuse('Reserved', `domain ${shown} is under the reserved name ${reserved}, which is not delegated on the internet`);
  if (labels.length === 1) {
    return refuse('SingleLabel', `domain ${shown} is a top-level domain; add a domain registered under it, for example example.${ascii}`);
  }
  if (isPublicSuffix(ascii)) {
    return refuse('PublicSuffix', `domain ${shown} is a public suffix; add a domain registered under it, for example example.${ascii}`);
  }
  return { ok: true, domain: ascii };
}

/** A domain name was refused; the message names the problem and is safe to show (HTTP 400). */
export class InvalidDomainNameError extends PublicError {
  override readonly name = 'InvalidDomainNameError';
  readonly problem: DomainNameProblem;
  constructor(problem: DomainNameProblem, message: string) {
    super(400, message);
    this.problem = problem;
  }
}

/** The normalized domain, or throws `InvalidDomainNameError`. */
export function parseDomainName(input: string): string {
  const check = checkDomainName(input);
  if (!check.ok) throw new InvalidDomainNameError(check.problem, check.message);
  return check.domain;
}
