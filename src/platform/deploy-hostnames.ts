import { MAX_APP_HOSTNAMES } from '../apis/v1alpha1/runtime-app.ts';
import { HOSTNAME_PATTERN } from '../apis/v1alpha1/strings.ts';
import { normalizeName } from '../dns/names.ts';
import { BadRequestError } from '../errors.ts';

/** Host names a deploy may bind besides the default host (the RuntimeApp schema's bound). */
export const MAX_DEPLOY_HOSTNAMES = MAX_APP_HOSTNAMES;

const HOSTNAME = new RegExp(HOSTNAME_PATTERN);

const ANY_CASE_LABEL = '[A-Za-z0-9]([-A-Za-z0-9]{0,61}[A-Za-z0-9])?';
const ANY_CASE_HOST = `(${ANY_CASE_LABEL}\\.)+[A-Za-z]([-A-Za-z0-9]{0,61}[A-Za-z0-9])?\\.?`;
/**
 * The `hostnames` option's shape for the API's schema, so clients and fuzzers reading the document know it:
 * ASCII host names in any case (a trailing dot allowed; a name outside ASCII in its punycode form, as `cw
 * deploy` sends it), comma-separated with optional spaces, or empty. The length of each name is the parser's.
 */
export const DEPLOY_HOSTNAMES_PATTERN = `^ *(${ANY_CASE_HOST} *(, *${ANY_CASE_HOST} *){0,${MAX_APP_HOSTNAMES - 1}})?$`;

/**
 * The `hostnames` deploy option: a comma-separated list (spaces around names ignored). Case and a trailing
 * dot do not matter (`WWW.Example.com.` is `www.example.com`), a name outside ASCII is taken in its
 * punycode form (`bücher.example` is `xn--bcher-kva.example`); duplicates collapse. An empty value binds
 * none. Throws `BadRequestError` naming the first name that is not a host name.
 */
export function parseDeployHostnames(raw: string): string[] {
  const given = raw
    .split(',')
    .map((name) => name.trim())
    .filter((name) => name !== '');
  const unique = new Map<string, string>(); // normalized (punycode for names outside ASCII) → as given
  for (const name of given) unique.set(normalizeName(name), name);
  if (unique.size > MAX_DEPLOY_HOSTNAMES) {
    throw new BadRequestError(`hostnames lists ${unique.size} host names; at most ${MAX_DEPLOY_HOSTNAMES} are allowed.`);
  }
  for (const [name, asGiven] of unique) {
    if (name.length > 253 || !HOSTNAME.test(name)) {
      const shown = JSON.stringify(asGiven.length > 64 ? `${asGiven.slice(0, 64)}…` : asGiven);
      throw new BadRequestError(`hostnames: ${shown} is not a host name (lowercase labels separated by dots, such as www.example.com).`);
    }
  }
  return [...unique.keys()];
}

/** Where a deploy host name may not go, given the runtime's base domain; `undefined` when it may. */
export function foreignBaseDomainHost(hostname: string, project: string, baseDomain: string): string | undefined {
  const base = `.${baseDomain}`;
  if (!hostname.endsWith(base) && hostname !== baseDomain) return undefined;
  if (hostname.endsWith(`.${project}${base}`)) return undefined;
  return `hostnames: ${hostname} is under the runtime's domain ${baseDomain}, where project ${project} may only use names ending in .${project}.${baseDomain}.`;
}
