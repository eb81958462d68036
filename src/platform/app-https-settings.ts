import { DEFAULT_HSTS_MAX_AGE_SECONDS, hstsRefusal, type AppHsts, type AppHttps } from '../apis/v1alpha1/app-https.ts';
import { BadRequestError } from '../errors.ts';

/** An app's HSTS as the REST API shows and takes it. */
export interface HstsView {
  max_age_seconds: number;
  include_subdomains: boolean;
  preload: boolean;
}

/** An app's HTTPS settings as the REST API shows them (`https` of the app view). */
export interface HttpsView {
  redirect_http: boolean;
  /** Absent: no Strict-Transport-Security. */
  hsts?: HstsView;
}

/** What a request asks for: fields left out are kept (a create starts from nothing); `hsts: null` removes HSTS. */
export interface HttpsChange {
  readonly redirect_http?: boolean | undefined;
  readonly hsts?: { readonly max_age_seconds?: number | undefined; readonly include_subdomains?: boolean | undefined; readonly preload?: boolean | undefined } | null | undefined;
}

export function httpsView(https: AppHttps | undefined): HttpsView {
  const hsts = https?.hsts;
  return {
    redirect_http: https?.redirectHttp ?? false,
    ...(hsts ? { hsts: { max_age_seconds: hsts.maxAgeSeconds ?? DEFAULT_HSTS_MAX_AGE_SECONDS, include_subdomains: hsts.includeSubdomains ?? false, preload: hsts.preload ?? false } } : {}),
  };
}

/**
 * The spec's `https` after `change` (the bounds are the request schema's): a given `hsts` replaces the current one
 * whole, its max-age one year unless given. Answers `undefined` when both are off, so the spec holds no empty object.
 * @throws BadRequestError for a preload HSTS without include_subdomains or under a year
 */
export function applyHttpsChange(current: AppHttps | undefined, change: HttpsChange): AppHttps | undefined {
  const redirectHttp = change.redirect_http ?? current?.redirectHttp ?? false;
  let hsts: AppHsts | undefined = current?.hsts;
  if (change.hsts === null) hsts = undefined;
  else if (change.hsts !== undefined) {
    hsts = {
      maxAgeSeconds: change.hsts.max_age_seconds ?? DEFAULT_HSTS_MAX_AGE_SECONDS,
      includeSubdomains: change.hsts.include_subdomains ?? false,
      preload: change.hsts.preload ?? false,
    };
    const refusal = hstsRefusal(hsts);
    if (refusal) throw new BadRequestError(refusal);
  }
  if (!redirectHttp && !hsts) return undefined;
  return { ...(redirectHttp ? { redirectHttp } : {}), ...(hsts ? { hsts } : {}) };
}
