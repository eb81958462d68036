import { describe, expect, it } from 'vitest';
import { foreignBaseDomainHost, parseDeployHostnames } from './deploy-hostnames.ts';

describe('parseDeployHostnames', () => {
  it('splits on commas, trims, lowercases, drops a trailing dot and duplicates', () => {
    expect(parseDeployHostnames(' Shop.Example.com., www.example.com ,shop.example.com')).toEqual(['shop.example.com', 'www.example.com']);
    expect(parseDeployHostnames('www.Bücher.example, www.xn--bcher-kva.example')).toEqual(['www.xn--bcher-kva.example']);
  });

  it('reads an empty value as no host names', () => {
    expect(parseDeployHostnames('')).toEqual([]);
    expect(parseDeployHostnames(' , ')).toEqual([]);
  });

  it.each(['localhost', 'under_score.example.com', '10.0.0.1', '*.example.com', 'a..b.com', `${'a'.repeat(64)}.com`, 'x'.repeat(250) + '.com'])('refuses %s, naming it', (name) => {
    expect(() => parseDeployHostnames(`ok.example.com,${name}`)).toThrow(/is not a host name/);
  });

  it('refuses more than 32 names', () => {
    const names = Array.from({ length: 33 }, (_, i) => `h${i}.example.com`).join(',');
    expect(() => parseDeployHostnames(names)).toThrow(/at most 32/);
    expect(parseDeployHostnames(names.split(',').slice(0, 32).join(','))).toHaveLength(32);
  });
});

describe('foreignBaseDomainHost', () => {
  it.each([
    ['www.example.com', undefined],
    ['web.p1.apps.localhost', undefined],
    ['a.b.p1.apps.localhost', undefined],
    ['web.p2.apps.localhost', 'p1'],
    ['p1.apps.localhost', 'p1'],
    ['apps.localhost', 'p1'],
    ['xp1.apps.localhost', 'p1'],
  ])('%s for project p1 → %s', (hostname, mention) => {
    const problem = foreignBaseDomainHost(hostname, 'p1', 'apps.localhost');
    if (mention === undefined) expect(problem).toBeUndefined();
    else expect(problem).toContain(`.${mention}.apps.localhost`);
  });
});
