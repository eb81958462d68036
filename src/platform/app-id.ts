import { createHash } from 'node:crypto';
import { DNS_LABEL_PATTERN } from '../apis/v1alpha1/strings.ts';

const LABEL = new RegExp(DNS_LABEL_PATTERN);
/** Room left for `-` and the suffix, and short enough for readable default hosts. */
const MAX_SLUG = 40;
const SUFFIX_HEX = 6;

/**
 * The app id (the RuntimeApp's name, a DNS label used in the default host) for an app created with
 * `name`. A name that already is a DNS label is its own id; any other name becomes a slug of it plus six
 * hex digits of the name's SHA-256 (`My Shop` → `my-shop-b14e76`).
 *
 * Deterministic on purpose: the apiserver refuses a second object of the same name, so two apps of the same
 * name can never exist in a project, even when two creates race or a client retries after a lost response.
 */
export function appIdFor(name: string): string {
  if (LABEL.test(name)) return name;
  const slug = name
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '') // accents go, letters stay: Café → cafe
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .slice(0, MAX_SLUG)
    .replace(/^-+|-+$/g, '');
  const suffix = createHash('sha256').update(name).digest('hex').slice(0, SUFFIX_HEX);
  return `${slug || 'app'}-${suffix}`;
}
