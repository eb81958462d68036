import { describe, expect, it } from 'vitest';
import type { Project } from '../apis/v1alpha1/index.ts';
import { projectsVisibleTo, roleIn } from './project-reader.ts';

const project = (name: string, members: Record<string, 'owner' | 'member'>): Project => ({
  metadata: { name },
  spec: { displayName: name, members: Object.entries(members).map(([user, role]) => ({ user, role })) },
});
const projects = [project('zeta', { alice: 'member' }), project('alpha', { alice: 'owner', bob: 'member' }), project('mid', {})];

describe('project reading', () => {
  it('reads roles; no project or no membership is undefined', () => {
    expect(roleIn(projects[1], 'alice')).toBe('owner');
    expect(roleIn(projects[1], 'bob')).toBe('member');
    expect(roleIn(projects[2], 'alice')).toBeUndefined();
    expect(roleIn(undefined, 'alice')).toBeUndefined();
    expect(roleIn({ metadata: { name: 'bare' }, spec: { displayName: 'bare' } }, 'alice')).toBeUndefined();
  });

  it("lists a member's projects by name, and every project for an effective administrator", () => {
    const names = (list: Project[]) => list.map((p) => p.metadata?.name);
    expect(names(projectsVisibleTo(projects, 'alice', false))).toEqual(['alpha', 'zeta']);
    expect(names(projectsVisibleTo(projects, 'carol', false))).toEqual([]);
    expect(names(projectsVisibleTo(projects, 'carol', true))).toEqual(['alpha', 'mid', 'zeta']);
  });

  it('hands out copies', () => {
    const [first] = projectsVisibleTo(projects, 'alice', false);
    first?.spec.members?.push({ user: 'mallory', role: 'owner' });
    expect(roleIn(projects[1], 'mallory')).toBeUndefined();
  });
});
