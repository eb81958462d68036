import { describe, expect, it } from 'vitest';
import { KubeApiError } from '../src/kube/index.ts';
import { createLogger } from '../src/logging/log.ts';
import { projectsAccessLog } from './projects-access.ts';

function logged() {
  const lines: Record<string, unknown>[] = [];
  return { lines, log: createLogger({ level: 'debug', write: (line) => lines.push(JSON.parse(line) as Record<string, unknown>) }) };
}

const forbidden = new KubeApiError(403, 'projects.cloudwright.dev is forbidden: User "system:serviceaccount:cw:cw-runtime" cannot list resource "projects"', 'Forbidden');
const unavailable = new KubeApiError(503, 'the server is currently unable to handle the request', 'ServiceUnavailable');
const levels = (lines: Record<string, unknown>[]) => lines.map((l) => `${String(l.level)} ${String(l.msg)}`);

describe('projectsAccessLog', () => {
  it('warns once that Projects may not be listed and what it means, then retries quietly', () => {
    const { lines, log } = logged();
    const access = projectsAccessLog(log);
    for (let i = 0; i < 5; i++) access.onError(forbidden, { phase: 'list-watch', retryInMs: 30_000 });
    expect(lines.filter((l) => l.level === 'warn')).toEqual([
      expect.objectContaining({ msg: expect.stringMatching(/^may not list and watch Projects .*each project counts as its own account/), resource: 'projects', retryInMs: 30_000 }),
    ]);
    expect(lines.filter((l) => l.level === 'debug')).toHaveLength(4);
    // Listed at last (the ClusterRole fixed): said, and a later refusal is news again.
    access.listed();
    access.onError(forbidden, { phase: 'list-watch', retryInMs: 1000 });
    expect(levels(lines.slice(5))).toEqual(['info Projects listed: each project counts against its creator’s account again', expect.stringMatching(/^warn may not list/)]);
  });

  it('warns of every other failure as any informer error, and of a refusal after one again', () => {
    const { lines, log } = logged();
    const access = projectsAccessLog(log);
    access.onError(forbidden, { phase: 'list-watch', retryInMs: 1000 });
    access.onError(unavailable, { phase: 'list-watch', retryInMs: 2000 });
    access.onError(unavailable, { phase: 'list-watch', retryInMs: 4000 });
    access.onError(forbidden, { phase: 'list-watch', retryInMs: 8000 });
    access.onError(new Error('a handler threw'), { phase: 'handler' });
    expect(levels(lines)).toEqual([expect.stringMatching(/^warn may not list/), 'warn informer error', 'warn informer error', expect.stringMatching(/^warn may not list/), 'warn informer error']);
  });

  it('says nothing when listed with no refusal first', () => {
    const { lines, log } = logged();
    projectsAccessLog(log).listed();
    expect(lines).toEqual([]);
  });
});
