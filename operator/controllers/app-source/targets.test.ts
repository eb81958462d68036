import { describe, expect, it } from 'vitest';
import type { AppSource } from '../../../src/apis/v1alpha1/app-source.ts';
import { buildName, buildSpec, targetsOf } from './targets.ts';

const A = 'a'.repeat(40);
const B = 'b'.repeat(40);
const C = 'c'.repeat(40);

function source(spec: Partial<AppSource['spec']> = {}): AppSource {
  return { metadata: { name: 'web', namespace: 'p' }, spec: { app: 'web', repository: { owner: 'acme', name: 'site' }, ...spec } };
}

describe('targetsOf', () => {
  it('builds the production branch to the app and every other branch to its preview app', () => {
    const refs = new Map([
      ['refs/heads/main', A],
      ['refs/heads/feature/x', B],
      ['refs/tags/v1', C],
    ]);
    const targets = targetsOf(source(), refs);
    expect(targets.production).toEqual({ context: 'production', branch: 'main', app: 'web', commit: A });
    expect(targets.previews).toEqual([{ context: 'preview', branch: 'feature/x', app: 'feature-x--web', commit: B }]);
  });

  it('has no production target before the production branch exists, and only matching previews', () => {
    const refs = new Map([
      ['refs/heads/feature/x', B],
      ['refs/heads/fix/y', C],
    ]);
    const targets = targetsOf(source({ productionBranch: 'prod', previewBranches: ['feature/*'] }), refs);
    expect(targets.production).toBeUndefined();
    expect(targets.previews.map((t) => t.branch)).toEqual(['feature/x']);
    expect(targetsOf(source({ previewBranches: [] }), refs).previews).toEqual([]);
  });

  it('bounds the previews of a source, saying which branches were left out', () => {
    const refs = new Map(Array.from({ length: 55 }, (_, i) => [`refs/heads/b${String(i).padStart(2, '0')}`, A] as const));
    const targets = targetsOf(source(), refs);
    expect(targets.previews).toHaveLength(50);
    expect(targets.leftOut).toEqual(['b50', 'b51', 'b52', 'b53', 'b54']);
  });

  it('gives branches of the same slug apps of their own, so their builds never supersede each other', () => {
    const refs = new Map([
      ['refs/heads/fix/login', A],
      ['refs/heads/fix-login', B],
      ['refs/heads/feature/x', C],
    ]);
    const apps = targetsOf(source(), refs).previews.map((t) => t.app);
    expect(new Set(apps).size).toBe(3);
    expect(apps.filter((app) => /^fix-login-[0-9a-f]{6}--web$/.test(app))).toHaveLength(2);
    expect(apps).toContain('feature-x--web');
  });

  it("gives a branch named like another's hashed name an app of its own too (found in review: both deployed to one)", () => {
    const hashedName =
      targetsOf(
        source(),
        new Map([
          ['refs/heads/fix/a', A],
          ['refs/heads/fix-a', B],
        ]),
      ).previews.find((t) => t.branch === 'fix/a')?.app ?? '';
    const literal = hashedName.replace(/--web$/, '');
    const refs = new Map([
      ['refs/heads/fix/a', A],
      ['refs/heads/fix-a', B],
      [`refs/heads/${literal}`, C],
    ]);
    const { previews, leftOut } = targetsOf(source(), refs);
    expect(previews.map((t) => t.branch).sort()).toEqual(['fix-a', 'fix/a', literal].sort());
    expect(new Set(previews.map((t) => t.app)).size).toBe(3);
    expect(leftOut).toEqual([]);
  });

  it('leaves out, and names, branches git allows but a build cannot carry', () => {
    const refs = new Map([
      ['refs/heads/fix#1', A],
      ['refs/heads/größe', B],
      ['refs/heads/feature/x', C],
    ]);
    const targets = targetsOf(source(), refs);
    expect(targets.previews.map((t) => t.branch)).toEqual(['feature/x']);
    expect(targets.unnamed).toEqual(['fix#1', 'größe']);
  });

  it('names a build after its app and commit, so a force-push is a new build and the same commit is not built twice', () => {
    expect(buildName({ app: 'web', commit: A })).toBe('web-aaaaaaaaaaaa');
  });

  it('gives a build the app’s environment with the context’s over it', () => {
    const s = source({ environment: { preview: { API: 'staging', ONLY_PREVIEW: '1' }, production: { API: 'prod' } }, build: { command: 'npm run build', outputDirectory: 'dist' } });
    const spec = buildSpec(s, { context: 'preview', branch: 'x', app: 'x--web', commit: B }, { API: 'app', KEEP: 'k' });
    expect(spec.environment).toEqual({ API: 'staging', ONLY_PREVIEW: '1', KEEP: 'k' });
    expect(spec).toMatchObject({ app: 'x--web', source: 'web', context: 'preview', repository: 'acme/site', branch: 'x', commit: B, build: { command: 'npm run build', outputDirectory: 'dist' } });
    expect(buildSpec(s, { context: 'production', branch: 'main', app: 'web', commit: A }, undefined).environment).toEqual({ API: 'prod' });
  });
});
