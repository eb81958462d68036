import type { IncomingMessage } from 'node:http';
import { hstsHeaderValue, type AppHttps } from '../../src/apis/v1alpha1/app-https.ts';
import { normalizeHost } from '../../src/runtime-contract/hosts.ts';

const ACME_CHALLENGE = '/.well-known/acme-challenge/';

/** What the entry point does with a request to an app for its HTTPS settings: redirect it, or add HSTS to its answer. */
export type HttpsVerdict = { readonly redirect: string; readonly hsts?: undefined } | { readonly redirect?: undefined; readonly hsts: string } | undefined;

export interface HttpsPolicyOptions {
  /** The HTTPS settings of app `key` (`<namespace>/<app>`): its RuntimeApp's `spec.https`. */
  readonly settings: (app: string) => AppHttps | undefined;
  /** Whether this replica serves a certificate for `host` (its SNI index; false without an HTTPS listener). */
  readonly hasCertificate: (host: string) => boolean;
  /** The port clients reach HTTPS on (CW_RUNTIME_PUBLIC_HTTPS_PORT), left out of `Location` when 443. */
  readonly publicHttpsPort: number;
}

/**
 * The per-app redirect and HSTS (docs/tls.md, "Redirect and HSTS"), decided from memory for each request routed
 * to an app. Over HTTPS (`secure`: the entry point's `cameOverHttps`) an app with `hsts`
 * gets its `Strict-Transport-Security`; over plain HTTP nothing is added (RFC 6797 §7.2), and an app with
 * `redirectHttp` is redirected, except ACME HTTP-01 challenges (a CA validating a name must reach it over HTTP)
 * and a host this replica has no certificate for (a redirect there would break the app until one is issued).
 */
export function httpsPolicy(options: HttpsPolicyOptions): (req: IncomingMessage, app: string, secure: boolean) => HttpsVerdict {
  return (req, app, secure) => {
    const settings = options.settings(app);
    if (!settings) return undefined;
    if (secure) return settings.hsts ? { hsts: hstsHeaderValue(settings.hsts) } : undefined;
    if (!settings.redirectHttp) return undefined;
    const host = normalizeHost(req.headers.host ?? (req.headers[':authority'] as string | undefined));
    const target = originForm(req.url ?? '');
    if (host === undefined || target === undefined || target.startsWith(ACME_CHALLENGE) || !options.hasCertificate(host)) return undefined;
    const port = options.publicHttpsPort === 443 ? '' : `:${options.publicHttpsPort}`;
    return { redirect: `https://${host}${port}${target}` };
  };
}

/** The path and query of a request target (origin or absolute form); undefined for `*` and the like. */
export function originForm(target: string): string | undefined {
  if (target.startsWith('/')) return target;
  if (!/^https?:\/\//i.test(target)) return undefined;
  try {
    const url = new URL(target);
    return `${url.pathname}${url.search}`;
  } catch {
    return undefined;
  }
}
