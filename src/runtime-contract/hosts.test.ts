import { describe, expect, it } from 'vitest';
import { assignHosts, contestedHosts, defaultHost, defaultHostOwner, hostsOf, normalizeHost, type HostClaim } from './hosts.ts';

const app = (project: string, appId: string, hostnames: string[] = []): HostClaim => ({ key: `${project}/${appId}`, project, appId, hostnames });

describe('defaultHostOwner', () => {
  it('names the app of a default host and nothing else', () => {
    expect(defaultHostOwner(defaultHost('demo', 'web', 'Apps.Example'), 'Apps.Example')).toEqual({ project: 'demo', appId: 'web' });
    expect(defaultHostOwner('x.web.demo.apps.example', 'apps.example')).toBeUndefined();
    expect(defaultHostOwner('demo.apps.example', 'apps.example')).toBeUndefined();
    expect(defaultHostOwner('.demo.apps.example', 'apps.example')).toBeUndefined();
    expect(defaultHostOwner('web.demo.other.example', 'apps.example')).toBeUndefined();
  });
});

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

  it('serves a host name two apps ask for for neither, in whatever order they come', () => {
    for (const claims of [
      [app('p', 'b', ['x.com']), app('p', 'a', ['x.com', 'y.com'])],
      [app('p', 'a', ['x.com', 'y.com']), app('p', 'b', ['x.com'])],
    ]) {
      const hosts = assignHosts(claims, base);
      expect(hosts.has('x.com')).toBe(false);
      expect(hosts.get('y.com')).toBe('p/a');
      expect(contestedHosts(claims, base)).toEqual(['x.com']);
    }
    // Once one of them lets it go, the other serves it.
    expect(assignHosts([app('p', 'b'), app('p', 'a', ['x.com'])], base).get('x.com')).toBe('p/a');
  });

  it('a default host cannot be claimed by another app', () => {
    const hosts = assignHosts([app('p', 'a'), app('q', 'b', ['a.p.apps.example'])], base);
    expect(hosts.get('a.p.apps.example')).toBe('p/a');
    expect(hostsOf('q/b', hosts, defaultHost('q', 'b', base))).toEqual(['b.q.apps.example']);
  });
});
