import { describe, expect, it } from 'vitest';
import { assignHosts, defaultHost, hostsOf, normalizeHost, type HostClaim } from './hosts.ts';

const app = (project: string, appId: string, hostnames: string[] = []): HostClaim => ({ key: `${project}/${appId}`, project, appId, hostnames });

describe('normalizeHost', () => {
  it.each([
    ['hello.demo.example', 'hello.demo.example'],
    ['Hello.Demo.Example:8080', 'hello.demo.example'],
    ['hello.demo.example.', 'hello.demo.example'],
    ['hello.demo.example.:443', 'hello.demo.example'],
    ['[::1]:8080', undefined],
    ['', undefined],
    [undefined, undefined],
  ])('%j → %j', (header, expected) => {
    expect(normalizeHost(header)).toBe(expected);
  });
});

describe('assignHosts', () => {
  const base = 'apps.example';
  it('gives every app its default host and its host names', () => {
    const hosts = assignHosts([app('p', 'a', ['www.a.com', 'A.com']), app('p', 'b')], base);
    expect([...hosts].sort()).toEqual([
      ['a.com', 'p/a'],
      ['a.p.apps.example', 'p/a'],
      ['b.p.apps.example', 'p/b'],
      ['www.a.com', 'p/a'],
    ]);
    expect(hostsOf('p/a', hosts, defaultHost('p', 'a', base))).toEqual(['a.p.apps.example', 'a.com', 'www.a.com']);
  });

  it.each([
    ['the smallest key wins a contested host', [app('p', 'b', ['x.com']), app('p', 'a', ['x.com'])], new Map(), 'p/a'],
    ['the incumbent keeps a contested host', [app('p', 'b', ['x.com']), app('p', 'a', ['x.com'])], new Map([['x.com', 'p/b']]), 'p/b'],
    ['an incumbent that no longer claims it loses it', [app('p', 'b'), app('p', 'c', ['x.com'])], new Map([['x.com', 'p/b']]), 'p/c'],
  ])('%s', (_name, claims, previous, owner) => {
    expect(assignHosts(claims, base, previous).get('x.com')).toBe(owner);
  });

  it('a default host cannot be claimed by another app', () => {
    const hosts = assignHosts([app('p', 'a'), app('q', 'b', ['a.p.apps.example'])], base);
    expect(hosts.get('a.p.apps.example')).toBe('p/a');
    expect(hostsOf('q/b', hosts, defaultHost('q', 'b', base))).toEqual(['b.q.apps.example']);
  });
});
