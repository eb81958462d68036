import { describe, expect, it } from 'vitest';
import { UnavailableError } from '../../src/errors.ts';
import { UnauthenticatedError } from './errors.ts';
import { NEW_TOKEN_GRACE_MS, ProjectTokens } from './project-tokens.ts';
import { MemoryProjectTokenSource } from './testing/memory-project-token-source.ts';

const NOW = Date.UTC(2030, 0, 1);

function setup() {
  const source = new MemoryProjectTokenSource();
  source.addProject('acme', ['ada', 'bob']);
  return { source, tokens: new ProjectTokens(source) };
}

function refusal(tokens: ProjectTokens, token: string, now = NOW): string {
  try {
    tokens.check(token, now);
  } catch (err) {
    expect(err).toBeInstanceOf(UnauthenticatedError);
    return (err as Error).message;
  }
  throw new Error('expected the token to be refused');
}

describe('project git tokens in cw-git', () => {
  it('grants a member’s token its project and scopes, write implying read', () => {
    const { source, tokens } = setup();
    const { token, resource } = source.addToken('acme', 'ada', { expiresAt: new Date(NOW + 60_000).toISOString() });
    const grant = tokens.check(token, NOW);
    expect({ ...grant, scopes: [...grant.scopes].sort() }).toEqual({ id: resource.metadata?.name, project: 'acme', user: 'ada', scopes: ['read', 'write'], expiresAt: NOW + 60_000 });
    const reader = source.addToken('acme', 'bob', { scopes: ['read'] });
    expect([...tokens.check(reader.token, NOW).scopes]).toEqual(['read']);
  });

  it('refuses a revoked token, and one from its expiry on', () => {
    const { source, tokens } = setup();
    const { token, resource } = source.addToken('acme', 'ada', { expiresAt: new Date(NOW + 1000).toISOString() });
    expect(tokens.check(token, NOW + 999).user).toBe('ada');
    expect(refusal(tokens, token, NOW + 1000)).toBe(`The git token ${resource.metadata?.name} expired at 2030-01-01T00:00:01.000Z.`);
    resource.spec.revoked = true;
    expect(refusal(tokens, token, NOW)).toBe(`The git token ${resource.metadata?.name} was revoked.`);
  });

  it('refuses a token whose maker left the project, or whose project is gone or does not own the namespace', () => {
    const { source, tokens } = setup();
    const { token, resource } = source.addToken('acme', 'ada');
    const id = resource.metadata?.name;
    source.addProject('acme', ['bob']);
    expect(refusal(tokens, token)).toBe(`The git token ${id} was made by ada, who is no longer a member of project acme.`);
    source.addProject('acme', ['ada']).status = {};
    expect(refusal(tokens, token)).toMatch(/belongs to no project/);
    source.addProject('acme', ['ada']).metadata = { name: 'acme', deletionTimestamp: new Date(NOW).toISOString() };
    expect(refusal(tokens, token)).toMatch(/belongs to no project/);
    source.projects.delete('acme');
    expect(refusal(tokens, token)).toMatch(/belongs to no project/);
    // A namespace named like no project at all (the release namespace, default): its tokens are nobody's.
    const stray = source.addToken('default', 'ada');
    expect(refusal(tokens, stray.token)).toMatch(/belongs to no project/);
  });

  it('refuses unknown, malformed and duplicated tokens without repeating them', () => {
    const { source, tokens } = setup();
    const unknown = `cwg_${'a'.repeat(43)}`;
    expect(refusal(tokens, unknown)).toBe('The git token is not known: it was never made here, or it was deleted.');
    expect(refusal(tokens, 'cwg_short')).toMatch(/malformed/);
    const { token, resource } = source.addToken('acme', 'ada');
    source.tokens.push({ ...resource, metadata: { name: 'gtk-0000000000000000', namespace: 'acme' } });
    expect(refusal(tokens, token)).toMatch(/not known/);
    for (const message of [refusal(tokens, token), refusal(tokens, unknown)]) expect(message).not.toContain('cwg_');
  });

  it('answers 503 while its caches are still loading, rather than "unknown token"', async () => {
    const { source, tokens } = setup();
    const { token } = source.addToken('acme', 'ada');
    source.loaded = false;
    await expect(tokens.authenticate(token, NOW)).rejects.toThrow(UnavailableError);
  });

  it('waits a moment for a token its cache has not seen yet, and no longer than the grace', async () => {
    const { source, tokens } = setup();
    const made = source.addToken('acme', 'ada');
    const later = source.tokens.pop()!;
    const pending = tokens.authenticate(made.token, NOW);
    source.tokens.push(later);
    source.notify();
    expect((await pending).user).toBe('ada');
    const started = Date.now();
    await expect(tokens.authenticate(`cwg_${'b'.repeat(43)}`, NOW)).rejects.toThrow(/not known/);
    expect(Date.now() - started).toBeGreaterThanOrEqual(NEW_TOKEN_GRACE_MS - 50);
  });
});
