import { describe, expect, it } from 'vitest';
import { BadRequestError } from '../errors.ts';
import { applyHttpsChange, httpsView } from './app-https-settings.ts';

describe('applyHttpsChange', () => {
  it('keeps what the change leaves out, replaces a given hsts whole with a one-year default, and removes it on null', () => {
    const current = { redirectHttp: true, hsts: { maxAgeSeconds: 600, includeSubdomains: true, preload: false } };
    expect(applyHttpsChange(current, {})).toEqual(current);
    expect(applyHttpsChange(current, { hsts: {} })).toEqual({ redirectHttp: true, hsts: { maxAgeSeconds: 31_536_000, includeSubdomains: false, preload: false } });
    expect(applyHttpsChange(current, { hsts: null })).toEqual({ redirectHttp: true });
    expect(applyHttpsChange(current, { redirect_http: false, hsts: null })).toBeUndefined();
    expect(applyHttpsChange(undefined, { redirect_http: true })).toEqual({ redirectHttp: true });
  });

  it('refuses preload without include_subdomains or under a year', () => {
    expect(() => applyHttpsChange(undefined, { hsts: { preload: true } })).toThrow(BadRequestError);
    expect(() => applyHttpsChange(undefined, { hsts: { preload: true, include_subdomains: true, max_age_seconds: 3600 } })).toThrow(/at least 31536000/);
    expect(applyHttpsChange(undefined, { hsts: { preload: true, include_subdomains: true } })?.hsts?.preload).toBe(true);
  });
});

describe('httpsView', () => {
  it('shows both settings off for an app without them, and the defaults of a stored hsts', () => {
    expect(httpsView(undefined)).toEqual({ redirect_http: false });
    expect(httpsView({ hsts: {} })).toEqual({ redirect_http: false, hsts: { max_age_seconds: 31_536_000, include_subdomains: false, preload: false } });
  });
});
