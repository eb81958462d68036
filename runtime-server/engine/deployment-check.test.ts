import { describe, expect, it } from 'vitest';
import { deploymentProblem } from './deployment-check.ts';
import type { AppDeployment } from './ports.ts';

const app = (over: Partial<AppDeployment>): AppDeployment => ({ project: 'demo', appId: 'hello', buildId: 'b1', env: {}, hostnames: [], ...over });

describe('deploymentProblem', () => {
  it.each<[string, Partial<AppDeployment>, string | undefined]>([
    ['a plain deployment', {}, undefined],
    ['a limit of one', { maxConcurrentRequests: 1 }, undefined],
    ['a project that is no DNS label', { project: 'Demo' }, 'project and app id must be DNS labels: Demo/hello'],
    ['an app id with a dot', { appId: 'a.b' }, 'project and app id must be DNS labels: demo/a.b'],
    ['an app id past 63 characters', { appId: 'a'.repeat(64) }, 'must be DNS labels'],
    ['an app id ending with a dash', { appId: 'a-' }, 'must be DNS labels'],
    ['a limit of zero', { maxConcurrentRequests: 0 }, 'maxConcurrentRequests must be a positive integer'],
    ['a fractional limit', { maxConcurrentRequests: 1.5 }, 'maxConcurrentRequests must be a positive integer'],
  ])('%s', (_name, over, message) => {
    const problem = deploymentProblem(app(over));
    if (message === undefined) expect(problem).toBeUndefined();
    else {
      expect(problem).toBeInstanceOf(TypeError);
      expect(problem?.message).toContain(message);
    }
  });
});
