import { createSocket, type Socket } from 'node:dgram';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseServerAddress, queryDns } from './dns-client.ts';
import { decodeMessage, encodeMessage, RCODE } from './dns-wire.ts';
import { checkDelegation, compareDelegation } from './delegation.ts';
import { startParentZoneServer, type ParentZoneServer } from './parent-zone-server.ts';
import { TargetPolicy } from '../target-policy.ts';

const expected = ['ns-1.zone.example', 'ns-2.zone.example'];

describe('compareDelegation', () => {
  it.each([
    [['NS-2.zone.example.', 'ns-1.zone.example'], true, 'Delegated', 'example.test is delegated to ns-1.zone.example, ns-2.zone.example.'],
    [[], false, 'NotDelegated', 'The parent zone lists no nameservers for example.test; set the nameservers at your registrar to ns-1.zone.example, ns-2.zone.example.'],
    [['ns1.other.net'], false, 'NameserversMismatch', 'The parent zone lists ns1.other.net; set the nameservers at your registrar to ns-1.zone.example, ns-2.zone.example.'],
    [['ns-1.zone.example'], false, 'NameserversMismatch', 'The parent zone lists ns-1.zone.example; set the nameservers'],
    [['ns-1.zone.example', 'ns-2.zone.example', 'ns3.other.net'], false, 'NameserversMismatch', 'lists ns-1.zone.example, ns-2.zone.example, ns3.other.net;'],
  ])('%j', (found, delegated, reason, message) => {
    const got = compareDelegation('example.test', found, expected);
    expect(got).toMatchObject({ delegated, reason, expected });
    expect(got.message).toContain(message);
  });
});

describe('checkDelegation against the parent-zone server', () => {
  let server: ParentZoneServer;
  beforeAll(async () => {
    server = await startParentZoneServer({ suffix: 'test' });
  });
  afterAll(() => server.stop());

  it('flips between not delegated, mismatched and delegated as the parent zone changes', async () => {
    const check = () => checkDelegation('example.test', expected, { parentServer: server.address, timeoutMs: 2000 });
    expect(await check()).toMatchObject({ delegated: false, reason: 'NotDelegated', found: [] });
    server.delegate('example.test', ['ns1.other.net']);
    expect(await check()).toMatchObject({
      delegated: false,
      reason: 'NameserversMismatch',
      found: ['ns1.other.net'],
      message: 'The parent zone lists ns1.other.net; set the nameservers at your registrar to ns-1.zone.example, ns-2.zone.example.',
    });
    server.delegate('example.test', ['NS-2.ZONE.EXAMPLE.', 'ns-1.zone.example']);
    expect(await check()).toMatchObject({ delegated: true, reason: 'Delegated', found: expected });
    server.undelegate('example.test');
    expect(await check()).toMatchObject({ delegated: false, reason: 'NotDelegated' });
  });

  it('falls back to TCP when the referral does not fit in UDP', async () => {
    const many = Array.from({ length: 40 }, (_, i) => `ns-${i}.a-rather-long-nameserver-name-for-testing-truncation.example`);
    server.delegate('big.test', many);
    const tcpBefore = server.queries.tcp;
    const result = await checkDelegation('big.test', many, { parentServer: server.address });
    expect(result).toMatchObject({ delegated: true, reason: 'Delegated' });
    expect(server.queries.tcp).toBe(tcpBefore + 1);
  });

  it('finds the parent zone through a resolver when no parent server is configured', async () => {
    server.delegate('found.test', expected);
    const result = await checkDelegation('found.test', expected, { resolver: server.address, parentPort: server.port });
    expect(result).toMatchObject({ delegated: true, reason: 'Delegated' });
  });

  it('does not query parent nameservers that a domain’s DNS puts at internal addresses', async () => {
    server.delegate('inside.test', expected);
    // The resolver (configured, trusted) is asked for the parent zone and its nameservers; they are on loopback.
    const before = server.queries.udp;
    const result = await checkDelegation('inside.test', expected, { resolver: server.address, parentPort: server.port, nameservers: new TargetPolicy() });
    expect(result).toMatchObject({ delegated: false, reason: 'NameserverRefused' });
    expect(result.message).toMatch(/^The nameservers of the parent zone of inside\.test \(.+ of test\) are at internal or reserved addresses, which the platform does not query/);
    expect(server.queries.udp - before, 'only the resolver was asked (SOA and NS), never the parent').toBe(2);
  });

  it('serves published records over UDP and TCP (the external-records flow)', async () => {
    server.setRecord('shop.customer.test', 'CNAME', ['edge.runtime.test']);
    server.setRecord('_acme-challenge.shop.customer.test', 'TXT', ['token-123']);
    const address = parseServerAddress(server.address);
    const cname = await queryDns(address, 'shop.customer.test', 'CNAME');
    expect(cname).toMatchObject({ rcode: 'NOERROR', authoritative: true, transport: 'udp' });
    expect(cname.answers).toEqual([expect.objectContaining({ type: 'CNAME', data: 'edge.runtime.test' })]);
    const txt = await queryDns(address, '_acme-challenge.shop.customer.test', 'TXT', { tcpOnly: true });
    expect(txt.transport).toBe('tcp');
    expect(txt.answers.map((r) => (r.type === 'TXT' ? String(r.data) : ''))).toEqual(['token-123']);
    expect((await queryDns(address, 'nope.customer.test', 'A')).rcode).toBe('NXDOMAIN');
  });
});

describe('checkDelegation when the parent zone misbehaves', () => {
  let silent: Socket;
  let failing: Socket;
  const portOf = (s: Socket) => (s.address() as AddressInfo).port;
  beforeAll(async () => {
    silent = createSocket('udp4');
    failing = createSocket('udp4');
    failing.on('message', (buf, remote) => {
      const query = decodeMessage(buf);
      failing.send(encodeMessage({ type: 'response', id: query.id, flags: RCODE.SERVFAIL, questions: query.questions }), remote.port, remote.address);
    });
    await Promise.all([silent, failing].map((s) => new Promise<void>((resolve) => s.bind(0, '127.0.0.1', resolve))));
  });
  afterAll(() => {
    silent.close();
    failing.close();
  });

  it('turns a timeout into a non-delegated result instead of an error', async () => {
    const result = await checkDelegation('example.test', expected, { parentServer: `127.0.0.1:${portOf(silent)}`, timeoutMs: 200 });
    expect(result).toEqual({
      delegated: false,
      found: [],
      expected,
      reason: 'Timeout',
      message: "The parent zone's nameservers did not answer within 0.2 s; the check can be repeated later.",
    });
  });

  it('turns SERVFAIL into a non-delegated result instead of an error', async () => {
    const result = await checkDelegation('example.test', expected, { parentServer: `127.0.0.1:${portOf(failing)}` });
    expect(result).toMatchObject({ delegated: false, reason: 'ServerFailure' });
    expect(result.message).toBe("The parent zone's nameservers could not answer for example.test (SERVFAIL); the check can be repeated later.");
  });
});

describe('parseServerAddress', () => {
  it.each([
    ['127.0.0.1:5353', { host: '127.0.0.1', port: 5353 }],
    ['10.0.0.2', { host: '10.0.0.2', port: 53 }],
    ['[::1]:5353', { host: '::1', port: 5353 }],
    ['::1', { host: '::1', port: 53 }],
    ['dns.internal:53', { host: 'dns.internal', port: 53 }],
  ])('%s', (text, address) => {
    expect(parseServerAddress(text)).toEqual(address);
  });

  it('refuses a bad port', () => {
    expect(() => parseServerAddress('127.0.0.1:99999')).toThrow(/host:port/);
  });
});
