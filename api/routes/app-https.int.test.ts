// An app's redirect to HTTPS and HSTS through the API: shown, set at creation, changed by PATCH, bounds refused.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RuntimeApp } from '../../src/apis/v1alpha1/runtime-app.ts';
import { objectClient } from '../../src/kube/index.ts';
import { RUNTIME_APPS } from '../../src/platform/resources.ts';
import { platformApp, type PlatformApp } from './testing/platform-app.ts';

let platform: PlatformApp;
let project: string;
let token: string;

beforeAll(async () => {
  platform = await platformApp();
  const owner = await platform.createUser();
  project = await platform.createProject(owner, { namespace: true });
  token = await platform.tokenFor(owner, ['apps:write']);
});
afterAll(() => platform.close());

const apps = () => objectClient<RuntimeApp>(platform.conn, RUNTIME_APPS);
const call = (method: 'GET' | 'POST' | 'PATCH', path: string, payload?: object) =>
  platform.app.inject({ method, url: `/v1/projects/${project}${path}`, headers: { authorization: `Bearer ${token}` }, ...(payload ? { payload } : {}) });

describe('app HTTPS settings', () => {
  it('creates an app with them, shows them, and writes them to its RuntimeApp', async () => {
    const created = await call('POST', '/apps', { name: 'shop', https: { redirect_http: true, hsts: { include_subdomains: true } } });
    expect(created.statusCode).toBe(201);
    const shown = { redirect_http: true, hsts: { max_age_seconds: 31_536_000, include_subdomains: true, preload: false } };
    expect(created.json().app.https).toEqual(shown);
    expect((await call('GET', '/apps/shop')).json().app.https).toEqual(shown);
    expect((await apps().get(project, 'shop'))?.spec.https).toEqual({ redirectHttp: true, hsts: { maxAgeSeconds: 31_536_000, includeSubdomains: true, preload: false } });
  });

  it('changes them by PATCH, keeping what the body leaves out; hsts null removes HSTS', async () => {
    await call('POST', '/apps', { name: 'blog' });
    expect((await call('GET', '/apps/blog')).json().app.https).toEqual({ redirect_http: false });
    const on = await call('PATCH', '/apps/blog', { https: { hsts: { max_age_seconds: 600 } } });
    expect([on.statusCode, on.json().app.https]).toEqual([200, { redirect_http: false, hsts: { max_age_seconds: 600, include_subdomains: false, preload: false } }]);
    const redirect = await call('PATCH', '/apps/blog', { https: { redirect_http: true } });
    expect(redirect.json().app.https).toEqual({ redirect_http: true, hsts: { max_age_seconds: 600, include_subdomains: false, preload: false } });
    const generation = (await apps().get(project, 'blog'))?.metadata?.generation;
    // The same settings again write nothing.
    expect((await call('PATCH', '/apps/blog', { https: { redirect_http: true } })).statusCode).toBe(200);
    expect((await call('PATCH', '/apps/blog', {})).statusCode).toBe(200);
    expect((await apps().get(project, 'blog'))?.metadata?.generation).toBe(generation);
    const off = await call('PATCH', '/apps/blog', { https: { redirect_http: false, hsts: null } });
    expect(off.json().app.https).toEqual({ redirect_http: false });
    expect((await apps().get(project, 'blog'))?.spec.https).toBeUndefined();
  });

  it.each([
    ['a max-age over two years', { hsts: { max_age_seconds: 63_072_001 } }, /max_age_seconds/],
    ['a negative max-age', { hsts: { max_age_seconds: -1 } }, /max_age_seconds/],
    ['a max-age that is not a whole number', { hsts: { max_age_seconds: 1.5 } }, /max_age_seconds/],
    ['an unknown field', { redirect: true }, /redirect/],
    ['preload without include_subdomains', { hsts: { preload: true } }, /preload needs include_subdomains/],
    ['preload under a year', { hsts: { preload: true, include_subdomains: true, max_age_seconds: 86_400 } }, /at least 31536000/],
  ])('refuses %s with a 400 problem, on create and on update, writing nothing', async (_name, https, detail) => {
    for (const res of [await call('PATCH', '/apps/shop', { https }), await call('POST', '/apps', { name: 'refused', https })]) {
      expect(res.statusCode).toBe(400);
      expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(res.json()).toMatchObject({ status: 400, detail: expect.stringMatching(detail) });
    }
    expect(await apps().get(project, 'refused')).toBeUndefined();
    expect((await apps().get(project, 'shop'))?.spec.https?.hsts?.maxAgeSeconds).toBe(31_536_000);
  });

  it('answers 404 for an app that does not exist', async () => {
    expect((await call('PATCH', '/apps/nobody', { https: { redirect_http: true } })).statusCode).toBe(404);
  });
});
