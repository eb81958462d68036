import { describe, expect, it } from 'vitest';
import { OwnerRuns } from './owner-runs.ts';

describe('OwnerRuns', () => {
  it('runs so many at once for an owner (429) and on the instance (503), and takes a run back however it ends', async () => {
    const runs = new OwnerRuns({ perOwner: 1, total: 2, what: 'things running', codes: { owner: 'owner_things_limit', instance: 'things_busy' }, retryAfterSeconds: 7 });
    let finish: (() => void) | undefined;
    const first = runs.run('acme', () => new Promise<void>((resolve) => (finish = resolve)));
    await expect(runs.run('acme', async () => 'never')).rejects.toMatchObject({ status: 429, code: 'owner_things_limit', headers: { 'retry-after': '7' } });
    const release = runs.take('umbrella');
    expect(() => runs.take('wayne')).toThrow(expect.objectContaining({ status: 503, code: 'things_busy' }));
    release();
    await expect(runs.run('wayne', () => Promise.reject(new Error('failed')))).rejects.toThrow('failed');
    expect(runs.take('wayne')).toBeTypeOf('function');
    finish?.();
    await first;
    await expect(runs.run('acme', async () => 'ran')).resolves.toBe('ran');
  });

  it("counts a run against the repository owner's share too: many callers of one owner's repositories leave runs to the others", () => {
    const runs = new OwnerRuns({ perOwner: 2, total: 4, what: 'archives being made', codes: { owner: 'owner_archives_limit', instance: 'archives_busy' }, retryAfterSeconds: 5 });
    const releases = [runs.take('bob', 'acme'), runs.take('carol', 'acme')];
    expect(() => runs.take('dave', 'acme')).toThrow(expect.objectContaining({ status: 429, code: 'owner_archives_limit', message: expect.stringContaining('repositories of acme') }));
    const other = runs.take('dave', 'wayne');
    // A refused run took nothing: the caller's share is whole.
    const second = runs.take('dave', 'wayne');
    for (const release of [...releases, other, second]) release();
    expect(runs.take('dave', 'acme')).toBeTypeOf('function');
  });
});
