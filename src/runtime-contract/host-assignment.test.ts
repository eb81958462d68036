import { describe, expect, it } from 'vitest';
import { silentRuntimeLogger } from './log.ts';
import { HostAssignment } from './host-assignment.ts';

const app = (project: string, appId: string, hostnames: string[] = []) => ({ project, appId, hostnames });

function warningsLog() {
  const warnings: unknown[] = [];
  return { warnings, log: { ...silentRuntimeLogger, warn: (message: string, fields?: unknown) => warnings.push({ message, fields }) } };
}

/** Every host → app of an assignment, for the hosts asked about. */
const routes = (assignment: HostAssignment, hosts: string[]) => Object.fromEntries(hosts.flatMap((h) => (assignment.get(h) ? [[h, assignment.get(h)]] : [])));

describe('HostAssignment', () => {
  it('gives each app its default host and the names only it asks for; a contested name to none, with a warning', () => {
    const { warnings, log } = warningsLog();
    const assignment = new HostAssignment('apps.test', log);
    assignment.set('a/web', app('a', 'web', ['www.example', 'Both.example.']));
    assignment.set('b/shop', app('b', 'shop', ['both.example']));
    expect(routes(assignment, ['web.a.apps.test', 'www.example', 'both.example', 'shop.b.apps.test'])).toEqual({
      'web.a.apps.test': 'a/web',
      'www.example': 'a/web',
      'shop.b.apps.test': 'b/shop',
    });
    expect(warnings).toEqual([{ message: 'host names several apps ask for are served for none of them', fields: { hosts: ['both.example'], apps: ['a/web', 'b/shop'] } }]);
    expect(assignment.hostsOf('a/web', 'web.a.apps.test')).toEqual(['web.a.apps.test', 'www.example']);
  });

  it('gives a contested name to the one app left asking, and frees an app’s names when it goes', () => {
    const assignment = new HostAssignment('apps.test', silentRuntimeLogger);
    assignment.set('p/a', app('p', 'a', ['shared.example']));
    assignment.set('p/b', app('p', 'b', ['shared.example', 'b.example']));
    expect(assignment.get('shared.example')).toBeUndefined();
    expect(assignment.claimants('shared.example').sort()).toEqual(['p/a', 'p/b']); // contested: routed to none, asked by both
    assignment.set('p/a', app('p', 'a'));
    expect(assignment.get('shared.example')).toBe('p/b');
    expect(assignment.claimants('shared.example')).toEqual(['p/b']);
    expect(assignment.claimants('a.p.apps.test')).toEqual(['p/a']);
    assignment.set('p/b', undefined);
    expect(routes(assignment, ['shared.example', 'b.example', 'b.p.apps.test', 'a.p.apps.test'])).toEqual({ 'a.p.apps.test': 'p/a' });
    expect([...assignment.hostsRoutedTo('p/b')]).toEqual([]);
  });

  it('keeps a default host for its app against another asking for it, and gives it over when that app goes', () => {
    const assignment = new HostAssignment('apps.test', silentRuntimeLogger);
    assignment.set('p/www', app('p', 'www'));
    assignment.set('p/site', app('p', 'site', ['www.p.apps.test']));
    expect(assignment.get('www.p.apps.test')).toBe('p/www');
    assignment.set('p/www', undefined);
    expect(assignment.get('www.p.apps.test')).toBe('p/site');
    expect(assignment.hostsOf('p/site', 'site.p.apps.test')).toEqual(['site.p.apps.test', 'www.p.apps.test']);
    assignment.set('p/www', app('p', 'www')); // back: its default host is its own again
    expect(assignment.get('www.p.apps.test')).toBe('p/www');
    expect(assignment.hostsOf('p/site', 'site.p.apps.test')).toEqual(['site.p.apps.test']);
    expect(assignment.hostsRoutedTo('p/gone')).toEqual([]);
  });

  it('gives every app its default host and its names (any case, a trailing dot), the default host first', () => {
    const assignment = new HostAssignment('apps.example', silentRuntimeLogger);
    assignment.set('p/a', app('p', 'a', ['www.a.com', 'A.com.']));
    assignment.set('p/b', app('p', 'b'));
    expect(routes(assignment, ['a.com', 'a.p.apps.example', 'b.p.apps.example', 'www.a.com'])).toEqual({
      'a.com': 'p/a',
      'a.p.apps.example': 'p/a',
      'b.p.apps.example': 'p/b',
      'www.a.com': 'p/a',
    });
    expect(assignment.hostsOf('p/a', 'a.p.apps.example')).toEqual(['a.p.apps.example', 'a.com', 'www.a.com']);
  });

  it('serves a name two apps ask for for neither, in whatever order they come', () => {
    for (const order of [
      [app('p', 'b', ['x.com']), app('p', 'a', ['x.com', 'y.com'])],
      [app('p', 'a', ['x.com', 'y.com']), app('p', 'b', ['x.com'])],
    ]) {
      const assignment = new HostAssignment('apps.example', silentRuntimeLogger);
      for (const a of order) assignment.set(`${a.project}/${a.appId}`, a);
      expect(routes(assignment, ['x.com', 'y.com'])).toEqual({ 'y.com': 'p/a' });
    }
  });

  it("keeps a default host from another project's app asking for it", () => {
    const assignment = new HostAssignment('apps.example', silentRuntimeLogger);
    assignment.set('p/a', app('p', 'a'));
    assignment.set('q/b', app('q', 'b', ['a.p.apps.example']));
    expect(assignment.get('a.p.apps.example')).toBe('p/a');
    expect(assignment.hostsOf('q/b', 'b.q.apps.example')).toEqual(['b.q.apps.example']);
  });
});
