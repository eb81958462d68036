import type { IncomingMessage } from 'node:http';
import { describe, expect, it } from 'vitest';
import type { AppHttps } from '../../src/apis/v1alpha1/app-https.ts';
import { httpsPolicy, originForm } from './https-policy.ts';

const APP = 'shop/web';
const HOST = 'web.shop.apps.example.com';

function request(url: string, host = HOST): IncomingMessage {
  return { url, headers: { host } } as unknown as IncomingMessage;
}

function policy(settings: AppHttps | undefined, options: { certified?: readonly string[]; port?: number } = {}) {
  const certified = new Set(options.certified ?? [HOST]);
  return httpsPolicy({ settings: (app) => (app === APP ? settings : undefined), hasCertificate: (host) => certified.has(host), publicHttpsPort: options.port ?? 443 });
}

describe('httpsPolicy', () => {
  it('redirects plain HTTP to the same host, path and query over HTTPS when the app asks and a certificate is served', () => {
    expect(policy({ redirectHttp: true })(request('/cart?item=1&q=a%20b', 'Web.Shop.Apps.Example.com.:80'), APP, false)).toEqual({ redirect: `https://${HOST}/cart?item=1&q=a%20b` });
    expect(policy({ redirectHttp: true }, { port: 8443 })(request('/'), APP, false)).toEqual({ redirect: `https://${HOST}:8443/` });
    // An absolute-form target keeps its path and query; the Host header names the host.
    expect(policy({ redirectHttp: true })(request(`http://${HOST}/a?b`), APP, false)).toEqual({ redirect: `https://${HOST}/a?b` });
  });

  it('does not redirect an ACME HTTP-01 challenge, a host without a certificate, an app that did not ask, or `*`', () => {
    const on = policy({ redirectHttp: true }, { certified: [HOST] });
    expect(on(request('/.well-known/acme-challenge/tok'), APP, false)).toBeUndefined();
    expect(on(request('/', 'new.example.com'), APP, false)).toBeUndefined();
    expect(on(request('*'), APP, false)).toBeUndefined();
    expect(policy({})(request('/'), APP, false)).toBeUndefined();
    expect(policy({ redirectHttp: false, hsts: {} })(request('/'), APP, false)).toBeUndefined();
    expect(policy(undefined)(request('/'), APP, false)).toBeUndefined();
    expect(on(request('/'), 'other/app', false)).toBeUndefined();
  });

  it('sends HSTS only over HTTPS, built from the settings, and never redirects a request that came over HTTPS', () => {
    const hsts = policy({ redirectHttp: true, hsts: { includeSubdomains: true } });
    expect(hsts(request('/'), APP, true)).toEqual({ hsts: 'max-age=31536000; includeSubDomains' });
    expect(policy({ hsts: { maxAgeSeconds: 63_072_000, includeSubdomains: true, preload: true } })(request('/'), APP, true)).toEqual({
      hsts: 'max-age=63072000; includeSubDomains; preload',
    });
    expect(policy({ hsts: { maxAgeSeconds: 0 } })(request('/'), APP, true)).toEqual({ hsts: 'max-age=0' });
    expect(policy({ hsts: { maxAgeSeconds: 600 } })(request('/'), APP, false)).toBeUndefined();
    expect(policy({ redirectHttp: true })(request('/'), APP, true)).toBeUndefined();
  });
});

describe('originForm', () => {
  it.each([
    ['/a/b?c=d', '/a/b?c=d'],
    ['//evil.example/x', '//evil.example/x'],
    ['http://h.example/p?q', '/p?q'],
    ['HTTPS://h.example', '/'],
    ['*', undefined],
    ['h.example:443', undefined],
    ['http://[bad', undefined],
  ])('%s → %s', (target, expected) => {
    expect(originForm(target)).toBe(expected);
  });
});
