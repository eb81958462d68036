// `cw apps update`'s HTTPS flags, turned into the body of `PATCH …/apps/{appId}`.
import type { paths } from '../api/schema.ts';
import { UsageError } from '../errors.ts';

/** The HTTPS settings as the API shows them (`app.https`). */
export interface HttpsSettings {
  redirect_http: boolean;
  hsts?: { max_age_seconds: number; include_subdomains: boolean; preload: boolean };
}

/** The flags: each left out is `undefined` (commander's `--x` / `--no-x` pairs). */
export interface HttpsFlags {
  httpsRedirect?: boolean;
  hsts?: boolean;
  hstsMaxAge?: number;
  hstsIncludeSubdomains?: boolean;
  hstsPreload?: boolean;
}

/** The body's `https`, as the API documents it: a preload HSTS carries include_subdomains true (and a year or more). */
export type HttpsChange = NonNullable<NonNullable<paths['/v1/projects/{projectId}/apps/{appId}']['patch']['requestBody']>['content']['application/json']['https']>;
type Hsts = NonNullable<HttpsChange['hsts']>;

/** Whether the flags touch HSTS (so the current settings are needed to keep what they leave out). */
export function touchesHsts(flags: HttpsFlags): boolean {
  return flags.hsts !== undefined || flags.hstsMaxAge !== undefined || flags.hstsIncludeSubdomains !== undefined || flags.hstsPreload !== undefined;
}

/**
 * The change the flags ask for. The API replaces HSTS whole when given one, so an `--hsts-*` flag is applied on top
 * of `current` (the app's HSTS now): `--hsts-preload` alone keeps the max-age and subdomains it had.
 * @throws UsageError when nothing is asked, or `--no-hsts` comes with another `--hsts-*` flag
 */
export function httpsChange(flags: HttpsFlags, current: HttpsSettings | undefined): HttpsChange {
  const change: HttpsChange = {};
  if (flags.httpsRedirect !== undefined) change.redirect_http = flags.httpsRedirect;
  const tuned = flags.hstsMaxAge !== undefined || flags.hstsIncludeSubdomains !== undefined || flags.hstsPreload !== undefined;
  if (flags.hsts === false) {
    if (tuned) throw new UsageError('--no-hsts removes HSTS: it cannot come with --hsts-max-age, --hsts-include-subdomains or --hsts-preload');
    change.hsts = null;
  } else if (flags.hsts || tuned) {
    const now = current?.hsts;
    const maxAge = flags.hstsMaxAge ?? now?.max_age_seconds;
    const include = flags.hstsIncludeSubdomains ?? now?.include_subdomains;
    const preload = flags.hstsPreload ?? now?.preload;
    // Sent as asked: a preload without its requirements is the API's to refuse, with the reason, which cw prints.
    change.hsts = {
      ...(maxAge !== undefined ? { max_age_seconds: maxAge } : {}),
      ...(include !== undefined ? { include_subdomains: include } : {}),
      ...(preload !== undefined ? { preload } : {}),
    } as Hsts;
  }
  if (Object.keys(change).length === 0) throw new UsageError('nothing to change: give --https-redirect, --no-https-redirect, --hsts, --no-hsts or an --hsts-* option');
  return change;
}

/** How the settings read in `cw apps get` and after an update. */
export function httpsFields(https: HttpsSettings): [string, string][] {
  const { hsts } = https;
  const directives = hsts ? [`max-age=${hsts.max_age_seconds}`, ...(hsts.include_subdomains ? ['includeSubDomains'] : []), ...(hsts.preload ? ['preload'] : [])] : [];
  return [
    ['HTTP to HTTPS', https.redirect_http ? 'redirected (308) on hosts with a certificate' : 'not redirected'],
    ['HSTS', hsts ? directives.join('; ') : 'off'],
  ];
}
