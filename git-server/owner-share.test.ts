import { describe, expect, it } from 'vitest';
import type { Project } from '../src/apis/v1alpha1/project.ts';
import { CREATED_BY_USER_ANNOTATION } from '../src/apis/v1alpha1/project.ts';
import { projectCreatorShare } from './owner-share.ts';

const project = (name: string, user?: string): Project => ({
  metadata: { name, ...(user ? { annotations: { [CREATED_BY_USER_ANNOTATION]: user } } : {}) },
  spec: { displayName: name },
});

describe('projectCreatorShare', () => {
  it('counts the projects created for one user as one share, and anything else as its own', () => {
    const projects = new Map([project('shop', 'u-ada'), project('blog', 'u-ada'), project('tools', 'u-bob'), project('applied')].map((p) => [p.metadata?.name ?? '', p]));
    const shareOf = projectCreatorShare({ project: (name) => projects.get(name) });
    expect(shareOf('shop')).toBe(shareOf('blog'));
    expect(shareOf('tools')).not.toBe(shareOf('shop'));
    // A project made with kubectl (no creator), and an owner that is no project (a standalone bucket's).
    expect(shareOf('applied')).toBe('project:applied');
    expect(shareOf('acme')).toBe('project:acme');
    expect(shareOf('applied')).not.toBe(shareOf('shop'));
  });
});
