import { describe, expect, it } from 'vitest';
import { UsageError } from '../errors.ts';
import { httpsChange, httpsFields, touchesHsts } from './app-https.ts';

const current = { redirect_http: false, hsts: { max_age_seconds: 600, include_subdomains: true, preload: false } };

describe('httpsChange', () => {
  it('asks for what the flags say, keeping the HSTS settings they leave out', () => {
    expect(httpsChange({ httpsRedirect: true }, current)).toEqual({ redirect_http: true });
    expect(httpsChange({ httpsRedirect: false, hsts: false }, current)).toEqual({ redirect_http: false, hsts: null });
    expect(httpsChange({ hstsPreload: true }, current)).toEqual({ hsts: { max_age_seconds: 600, include_subdomains: true, preload: true } });
    expect(httpsChange({ hstsMaxAge: 31_536_000 }, { redirect_http: true })).toEqual({ hsts: { max_age_seconds: 31_536_000 } });
    expect(httpsChange({ hsts: true }, undefined)).toEqual({ hsts: {} });
  });

  it('refuses an empty change and --no-hsts with another --hsts-* flag', () => {
    expect(() => httpsChange({}, current)).toThrow(UsageError);
    expect(() => httpsChange({ hsts: false, hstsMaxAge: 10 }, current)).toThrow(/--no-hsts removes HSTS/);
  });

  it('says when the current settings are needed', () => {
    expect([touchesHsts({ httpsRedirect: true }), touchesHsts({ hstsIncludeSubdomains: false }), touchesHsts({ hsts: false })]).toEqual([false, true, true]);
  });
});

describe('httpsFields', () => {
  it('reads as the header would', () => {
    expect(httpsFields(current)).toEqual([
      ['HTTP to HTTPS', 'not redirected'],
      ['HSTS', 'max-age=600; includeSubDomains'],
    ]);
    expect(httpsFields({ redirect_http: true })).toEqual([
      ['HTTP to HTTPS', 'redirected (308) on hosts with a certificate'],
      ['HSTS', 'off'],
    ]);
  });
});
