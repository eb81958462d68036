import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TlsCertificate } from '../../src/apis/v1alpha1/tls-certificate.ts';
import { send } from '../engine/testing/http.ts';
import { http01Answerer } from './http01-answers.ts';
import { tlsCertificate } from './testing/certificates.ts';
import { preparedNames } from './testing/prepared-names.ts';

const certificates: TlsCertificate[] = [
  tlsCertificate('alpha', 'shop', ['shop.example'], { state: 'Issuing', http01: [{ dnsName: 'shop.example', token: 'tok-1', keyAuthorization: 'tok-1.thumb' }] }),
  // beta writes a challenge for alpha's name: beta may not serve it, so it is not answered.
  tlsCertificate('beta', 'thief', ['shop.example'], { state: 'Issuing', http01: [{ dnsName: 'shop.example', token: 'tok-2', keyAuthorization: 'tok-2.evil' }] }),
];
/** The certificates as a cache holds them (nothing changes here, so no events). */
const cache = {
  list: () => certificates,
  get: (key: string) => certificates.find((c) => `${c.metadata?.namespace}/${c.metadata?.name}` === key),
  onChange: () => {},
};
let server: Server;
let port = 0;

beforeAll(async () => {
  const answer = http01Answerer({ certificates: cache, mayServe: (namespace, host) => namespace === 'alpha' && host === 'shop.example' });
  server = createServer((req, res) => {
    if (answer(req, res) === true) return;
    res.end('the app');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

describe('HTTP-01 answers', () => {
  it('answers the key authorization of a token on its host (any case, with a port), before the app', async () => {
    for (const host of ['shop.example', 'SHOP.example:80']) {
      const res = await send(port, host, '/.well-known/acme-challenge/tok-1');
      expect(res).toMatchObject({ status: 200, body: 'tok-1.thumb' });
      expect(res.headers['content-type']).toBe('text/plain');
    }
  });

  it("leaves to the app an unknown token, another host, another path, and a namespace's challenge for a name it may not serve", async () => {
    for (const [host, path] of [
      ['shop.example', '/.well-known/acme-challenge/nope'],
      ['shop.example', '/.well-known/acme-challenge/'],
      ['other.example', '/.well-known/acme-challenge/tok-1'],
      ['shop.example', '/.well-known/acme-challenge/tok-1/x'],
      ['shop.example', '/.well-known/acme-challenge/tok-2'],
      ['shop.example', '/'],
    ] as const) {
      expect(await send(port, host, path)).toMatchObject({ status: 200, body: 'the app' });
    }
    expect(await send(port, 'shop.example', '/.well-known/acme-challenge/tok-1', { method: 'POST', body: 'x' })).toMatchObject({ body: 'the app' });
  });
});

describe('HTTP-01 answers before the names are listed', () => {
  it('reads a challenge’s name it cannot decide yet before answering, and nothing for a token no certificate has', async () => {
    const names = preparedNames();
    const answer = http01Answerer({ certificates: cache, mayServe: names.mayServe, prepareName: names.prepareName });
    const late = createServer((req, res) => {
      const answered = answer(req, res);
      if (answered === true) return;
      if (answered === false) return void res.end('the app');
      void answered.then((done) => done || res.end('the app'));
    });
    await new Promise<void>((resolve) => late.listen(0, '127.0.0.1', resolve));
    const at = (late.address() as AddressInfo).port;
    try {
      names.state.failing = true;
      expect(await send(at, 'shop.example', '/.well-known/acme-challenge/tok-1')).toMatchObject({ status: 200, body: 'the app' });
      names.state.failing = false;
      expect(await send(at, 'shop.example', '/.well-known/acme-challenge/tok-1')).toMatchObject({ status: 200, body: 'tok-1.thumb' });
      expect(await send(at, 'made-up.example', '/.well-known/acme-challenge/tok-1')).toMatchObject({ body: 'the app' });
      expect(await send(at, 'shop.example', '/.well-known/acme-challenge/made-up')).toMatchObject({ body: 'the app' });
      expect(names.state.asked).toEqual(['shop.example', 'shop.example']);
    } finally {
      await new Promise<void>((resolve) => late.close(() => resolve()));
    }
  });
});
