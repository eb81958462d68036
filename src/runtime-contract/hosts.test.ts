import { describe, expect, it } from 'vitest';
import { defaultHost, defaultHostOwner, normalizeHost } from './hosts.ts';

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
