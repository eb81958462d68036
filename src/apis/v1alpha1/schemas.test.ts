import Value from 'typebox/value';
import { describe, expect, it } from 'vitest';
import { AccessTokenSpec } from './access-token.ts';
import { AppHostnameSpec } from './app-hostname.ts';
import { BuildSpec } from './build.ts';
import { DnsRecordSpec } from './dns-record.ts';
import { ProjectSpec } from './project.ts';
import { RepositorySpec } from './repository.ts';
import { RuntimeAppSpec } from './runtime-app.ts';
import { DNS_LABEL_PATTERN, HOSTNAME_PATTERN } from './strings.ts';

// The same schemas validate in the API server (TypeBox) and in the kube-apiserver (CRD); these cases
// pin the field rules, the CRD side is exercised by the end-to-end tests.

const HASH = 'a'.repeat(64);
const BUILD = { app: 'web', buildId: 'b-0123456789abcdef', digest: HASH, size: 1, objectKey: 'apps/p/web/builds/b-0123456789abcdef.tar.zst' };

describe('v1alpha1 schemas', () => {
  it.each<[string, unknown, unknown, boolean]>([
    ['a minimal app', RuntimeAppSpec, { displayName: 'Hello' }, true],
    ['an app with env, hosts and a limit', RuntimeAppSpec, { displayName: 'x', environment: { NODE_ENV: 'production' }, hostnames: ['a.example.com'], maxConcurrentRequests: 10000 }, true],
    ['an env key that is no variable name', RuntimeAppSpec, { displayName: 'x', environment: { 'bad-key': 'v' } }, false],
    ['a concurrency limit of 0', RuntimeAppSpec, { displayName: 'x', maxConcurrentRequests: 0 }, false],
    ['duplicate hostnames', RuntimeAppSpec, { displayName: 'x', hostnames: ['a.example.com', 'a.example.com'] }, false],
    ['a display name with a control character', RuntimeAppSpec, { displayName: 'a\u0007' }, false],
    ['a build with its deploy options', BuildSpec, { ...BUILD, deployOptions: { hostnames: ['www.example.com'], maxConcurrentRequests: 7 } }, true],
    ['a build deployed with the defaults', BuildSpec, { ...BUILD, deployOptions: {} }, true],
    ['a build that recorded no options', BuildSpec, BUILD, true],
    ['a build recorded with a concurrency bound of 0', BuildSpec, { ...BUILD, deployOptions: { maxConcurrentRequests: 0 } }, false],
    ['a build recorded with an unknown option', BuildSpec, { ...BUILD, deployOptions: { environment: 'staging' } }, false],
    ['a token', AccessTokenSpec, { user: 'alice', description: '', scopes: ['domain:read'], tokenHash: HASH }, true],
    ['a token hash in uppercase', AccessTokenSpec, { user: 'alice', description: '', scopes: [], tokenHash: HASH.toUpperCase() }, false],
    ['a token expiry that is no timestamp', AccessTokenSpec, { user: 'alice', description: '', scopes: [], tokenHash: HASH, expiresAt: 'tomorrow' }, false],
    ['a project member with an unknown role', ProjectSpec, { displayName: 'p', members: [{ user: 'alice', role: 'admin' }] }, false],
    ['a managed hostname', AppHostnameSpec, { appRef: { name: 'web' }, hostname: 'www.example.com', dnsMode: 'managed_project_domain' }, true],
    ['a wildcard hostname', AppHostnameSpec, { appRef: { name: 'web' }, hostname: '*.example.com' }, false],
    ['an apex record', DnsRecordSpec, { domainRef: { name: 'example.com' }, name: '@', type: 'TXT', values: ['"v=spf1 -all"'] }, true],
    ['an ACME challenge record', DnsRecordSpec, { domainRef: { name: 'example.com' }, name: '_acme-challenge.www', type: 'TXT', values: ['x'], ttl: 60 }, true],
    ['a record without values', DnsRecordSpec, { domainRef: { name: 'example.com' }, name: 'www', type: 'A', values: [] }, false],
    ['a repository', RepositorySpec, { owner: 'acme', name: 'site.git-mirror', defaultBranch: 'release/1.x' }, true],
    ['a repository named ..', RepositorySpec, { owner: 'acme', name: '..' }, false],
  ])('%s', (_name, schema, value, valid) => {
    expect(Value.Check(schema as never, value)).toBe(valid);
  });

  it.each([
    [DNS_LABEL_PATTERN, 'a', true],
    [DNS_LABEL_PATTERN, 'a'.repeat(63), true],
    [DNS_LABEL_PATTERN, 'a'.repeat(64), false],
    [DNS_LABEL_PATTERN, '-a', false],
    [HOSTNAME_PATTERN, 'xn--p1ai.example', true],
    [HOSTNAME_PATTERN, 'localhost', false],
    [HOSTNAME_PATTERN, '10.0.0.1', false],
    [HOSTNAME_PATTERN, 'Example.com', false],
  ])('%s on %s is %s', (pattern, value, matches) => {
    expect(new RegExp(pattern).test(value)).toBe(matches);
  });
});
