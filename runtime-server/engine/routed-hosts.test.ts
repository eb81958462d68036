import { describe, expect, it } from 'vitest';
import { silentRuntimeLogger } from '../../src/runtime-contract/log.ts';
import type { AppDeployment } from './ports.ts';
import { RoutedHosts } from './routed-hosts.ts';
import type { Served } from './served.ts';
import type { LiveApp } from './worker-code.ts';

const deployment = (appId: string, hostnames: string[]): AppDeployment => ({ project: 'p', appId, buildId: 'b', env: {}, hostnames });
const served = (app: AppDeployment): Served => ({ id: `${app.appId}-id`, tailed: false, live: { app, build: { buildId: 'b' } as LiveApp['build'] } });

describe('RoutedHosts', () => {
  it('routes served and unprepared apps alike, and answers the same assignment until some host names change', () => {
    const hosts = new RoutedHosts('apps.test', silentRuntimeLogger);
    const a = deployment('a', ['a.example']);
    const b = deployment('b', []);
    hosts.changed(undefined, a);
    hosts.changed(undefined, b);
    const desired = new Map([
      ['p/a', { app: a }],
      ['p/b', { app: b }],
    ]);
    const first = hosts.assign(new Map([['p/a', served(a)]]), desired);
    expect(Object.fromEntries(first)).toEqual({ 'a.p.apps.test': 'p/a', 'a.example': 'p/a', 'b.p.apps.test': 'p/b' });
    expect(hosts.assign(new Map([['p/b', served(b)]]), desired)).toBe(first); // b prepared, a let go: nobody's names changed

    const renamed = deployment('b', ['b.example']);
    hosts.changed(b, renamed);
    desired.set('p/b', { app: renamed });
    expect(hosts.assign(new Map(), desired).get('b.example')).toBe('p/b');
  });

  it('gives a served app whose change of host names failed the names of what it serves', () => {
    const hosts = new RoutedHosts('apps.test', silentRuntimeLogger);
    const before = deployment('a', ['old.example']);
    const asked = deployment('a', ['new.example']);
    hosts.changed(undefined, asked);
    const assignment = hosts.assign(new Map([['p/a', served(before)]]), new Map([['p/a', { app: asked }]]));
    expect([assignment.get('old.example'), assignment.get('new.example')]).toEqual(['p/a', undefined]);
  });
});
