import { Type, type Static } from 'typebox';

/** HSTS `max-age` when the settings leave it out: one year, what hstspreload.org asks for at least. */
export const DEFAULT_HSTS_MAX_AGE_SECONDS = 31_536_000;
/** The longest `max-age` accepted: two years, the longest browsers' preload lists use. */
export const MAX_HSTS_MAX_AGE_SECONDS = 63_072_000;
/** The least `max-age` a preloaded policy may have (hstspreload.org's submission requirements). */
export const MIN_PRELOAD_MAX_AGE_SECONDS = 31_536_000;

export const AppHsts = Type.Object(
  {
    maxAgeSeconds: Type.Optional(
      Type.Integer({
        minimum: 0,
        maximum: MAX_HSTS_MAX_AGE_SECONDS,
        format: 'int32',
        description: `How long browsers keep to HTTPS, in seconds (absent: ${DEFAULT_HSTS_MAX_AGE_SECONDS}, one year); 0 tells them to forget the policy.`,
      }),
    ),
    includeSubdomains: Type.Optional(Type.Boolean({ description: 'The policy covers every subdomain of each host too (`includeSubDomains`).' })),
    preload: Type.Optional(Type.Boolean({ description: 'Adds `preload`: consent to browsers’ built-in HSTS lists (needs includeSubdomains and a max-age of a year or more).' })),
  },
  {
    additionalProperties: false,
    description: 'Strict-Transport-Security sent with the app’s answers over HTTPS (RFC 6797).',
    'x-kubernetes-validations': [
      {
        rule: `!has(self.preload) || !self.preload || (has(self.includeSubdomains) && self.includeSubdomains && (!has(self.maxAgeSeconds) || self.maxAgeSeconds >= ${MIN_PRELOAD_MAX_AGE_SECONDS}))`,
        message: `preload needs includeSubdomains and a maxAgeSeconds of at least ${MIN_PRELOAD_MAX_AGE_SECONDS}`,
      },
    ],
  },
);
export type AppHsts = Static<typeof AppHsts>;

/** How an app is served over HTTPS by cw-runtime (docs/tls.md, "Redirect and HSTS"). */
export const AppHttps = Type.Object(
  {
    redirectHttp: Type.Optional(
      Type.Boolean({
        description:
          'Answer plain-HTTP requests to the app’s hosts with 308 to the same URL over HTTPS, for each host the runtime serves a certificate for (ACME HTTP-01 challenges excepted). Default false.',
      }),
    ),
    hsts: Type.Optional(AppHsts),
  },
  { additionalProperties: false, description: 'HTTPS settings of the app: redirect and HSTS, both off unless set.' },
);
export type AppHttps = Static<typeof AppHttps>;

/** The `Strict-Transport-Security` value of `hsts` (RFC 6797 §6.1). */
export function hstsHeaderValue(hsts: AppHsts): string {
  const parts = [`max-age=${hsts.maxAgeSeconds ?? DEFAULT_HSTS_MAX_AGE_SECONDS}`];
  if (hsts.includeSubdomains) parts.push('includeSubDomains');
  if (hsts.preload) parts.push('preload');
  return parts.join('; ');
}

/** Why `hsts` may not be stored (the CRD's rule, said for the API's 400), or undefined. */
export function hstsRefusal(hsts: AppHsts): string | undefined {
  if (!hsts.preload) return undefined;
  if (!hsts.includeSubdomains || (hsts.maxAgeSeconds ?? DEFAULT_HSTS_MAX_AGE_SECONDS) < MIN_PRELOAD_MAX_AGE_SECONDS) {
    return `HSTS preload needs include_subdomains and a max_age_seconds of at least ${MIN_PRELOAD_MAX_AGE_SECONDS} (hstspreload.org's requirements).`;
  }
  return undefined;
}
