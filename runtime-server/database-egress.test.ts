import { describe, expect, it } from 'vitest';
import { ConfigError } from '../src/config/env.ts';
import { createLogger } from '../src/logging/log.ts';
import { canonicalAddress, DatabaseEgress, hostCidr, sharedAddresses } from './database-egress.ts';

function recorder(): { lines: Record<string, unknown>[]; log: ReturnType<typeof createLogger> } {
  const lines: Record<string, unknown>[] = [];
  return { lines, log: createLogger({ write: (line) => lines.push(JSON.parse(line) as Record<string, unknown>) }) };
}

/** Name resolution from a table; a name it lacks fails as an unknown name does. */
function resolver(table: Record<string, string[]>): (host: string) => Promise<string[]> {
  return (host) => (table[host] ? Promise.resolve(table[host]) : Promise.reject(new Error(`getaddrinfo ENOTFOUND ${host}`)));
}

describe('the SQL endpoint apps may reach', () => {
  it('spells addresses as CIDRs of one address', () => {
    expect(hostCidr('10.96.0.20')).toBe('10.96.0.20/32');
    expect(hostCidr('fd00::20')).toBe('fd00::20/128');
    expect(canonicalAddress('[::FFFF:127.0.0.1]')).toBe('127.0.0.1');
  });

  it('finds every address it shares with the platform, however spelled: every interface, 127.0.0.1, the hosts given', () => {
    expect(sharedAddresses(['127.0.0.2'], [])).toEqual([]);
    expect(sharedAddresses(['127.0.0.1', '0.0.0.0', '::', '::1', '::ffff:127.0.0.1'], [])).toHaveLength(5);
    expect(sharedAddresses(['10.96.0.1', '10.96.0.20'], ['10.96.0.1'])).toEqual(['10.96.0.1']);
  });

  it('allows the addresses its name resolves to, re-resolved before each workerd, the last answer while it does not resolve', async () => {
    const table: Record<string, string[]> = { 'cloudwright-db.cw.svc': ['10.96.0.20'], 'kubernetes.default.svc': ['10.96.0.1'] };
    const { lines, log } = recorder();
    const egress = new DatabaseEgress({ url: 'http://cloudwright-db.cw.svc', platformHosts: ['0.0.0.0', 'kubernetes.default.svc'], log, resolve: resolver(table) });
    await egress.check();
    expect(await egress.allow()).toEqual(['10.96.0.20/32']);
    table['cloudwright-db.cw.svc'] = ['10.96.0.21', 'fd00::21'];
    expect(await egress.allow()).toEqual(['10.96.0.21/32', 'fd00::21/128']);
    delete table['cloudwright-db.cw.svc'];
    expect(await egress.allow()).toEqual(['10.96.0.21/32', 'fd00::21/128']);
    expect(lines.some((l) => l.level === 'warn' && String(l.msg).includes('does not resolve'))).toBe(true);
  });

  it.each([
    ['127.0.0.1', 'http://127.0.0.1:8080', []],
    ['every interface', 'http://0.0.0.0:8080', []],
    ['the S3 endpoint', 'http://db.local:8080', ['s3.local']],
  ])('refuses to start with an endpoint on %s, naming the variable', async (_what, url, platformHosts) => {
    const { log } = recorder();
    const egress = new DatabaseEgress({ url, platformHosts, log, resolve: resolver({ 'db.local': ['192.168.1.5'], 's3.local': ['192.168.1.5'], '127.0.0.1': ['127.0.0.1'], '0.0.0.0': ['0.0.0.0'] }) });
    const failure = await egress.check().then(
      () => undefined,
      (err: unknown) => err,
    );
    expect(failure).toBeInstanceOf(ConfigError);
    expect((failure as Error).message).toMatch(/^CW_RUNTIME_DATABASE_URL: .* resolves to .*, where other parts of the platform listen too/);
  });

  it('starts while the name does not resolve yet, and never allows a shared address it resolves to later', async () => {
    const table: Record<string, string[]> = {};
    const { lines, log } = recorder();
    const egress = new DatabaseEgress({ url: 'http://db.local', platformHosts: [], log, resolve: resolver(table) });
    await egress.check();
    expect(await egress.allow()).toEqual([]);
    table['db.local'] = ['127.0.0.1', '127.0.0.2'];
    expect(await egress.allow()).toEqual(['127.0.0.2/32']);
    expect(lines.some((l) => l.level === 'error')).toBe(true);
  });
});
