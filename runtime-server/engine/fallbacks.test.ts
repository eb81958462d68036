import { describe, expect, it } from 'vitest';
import { Fallbacks } from './fallbacks.ts';
import type { AppDeployment } from './ports.ts';

const deployment = (buildId: string, env: Record<string, string> = {}): AppDeployment => ({ project: 'p', appId: 'web', buildId, env, hostnames: [] });

describe('Fallbacks', () => {
  it('keeps what served before a new build, shows it once the new one failed here, and forgets it once the new one serves', () => {
    const fallbacks = new Fallbacks();
    const [good, broken] = [deployment('good'), deployment('broken')];
    fallbacks.deployed('p/web', good, true);
    expect(fallbacks.of('p/web')).toBe(good);
    expect(fallbacks.shown('p/web', broken)).toBe(broken); // not tried yet: the deployment is what is shown

    fallbacks.failed('p/web', broken);
    expect(fallbacks.hasFailed('p/web', { ...broken })).toBe(true); // the same deployment, deployed again unchanged
    expect(fallbacks.shown('p/web', broken)).toBe(good);

    fallbacks.settle((key) => key !== 'p/web');
    expect(fallbacks.size).toBe(1);
    fallbacks.settle(() => true);
    expect([fallbacks.of('p/web'), fallbacks.size]).toEqual([undefined, 0]);
  });

  it('keeps the earlier fallback when the deployment replaced has none to give, and records none for a new environment alone', () => {
    const fallbacks = new Fallbacks();
    const [good, broken, brokenAgain] = [deployment('good'), deployment('broken'), deployment('broken2')];
    fallbacks.deployed('p/web', good, true);
    fallbacks.failed('p/web', broken);
    fallbacks.deployed('p/web', undefined, true); // the failed deployment is no fallback
    expect(fallbacks.of('p/web')).toBe(good);
    expect(fallbacks.hasFailed('p/web', broken)).toBe(false);
    fallbacks.failed('p/web', brokenAgain);
    expect(fallbacks.shown('p/web', brokenAgain)).toBe(good);

    const fresh = new Fallbacks();
    fresh.deployed('p/web', good, false);
    expect(fresh.size).toBe(0);
  });

  it('never counts the fallback itself as failed', () => {
    const fallbacks = new Fallbacks();
    const good = deployment('good');
    fallbacks.deployed('p/web', good, true);
    fallbacks.failed('p/web', good);
    expect(fallbacks.hasFailed('p/web', good)).toBe(false);
    fallbacks.forget('p/web');
    expect(fallbacks.size).toBe(0);
  });
});
