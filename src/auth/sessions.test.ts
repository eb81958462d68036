import { describe, expect, it } from 'vitest';
import { authenticate, authorize } from './authenticate.ts';
import { MemoryTokenStore } from './memory-token-store.ts';
import { activeSessions, DEFAULT_SESSION_POLICY, MAX_SESSIONS_PER_USER, startSession } from './sessions.ts';

describe('startSession', () => {
  it('ends the oldest sessions past the cap and never the one it just started, even when all began in the same second', async () => {
    const tokens = new MemoryTokenStore({ users: [{ id: 'ada', admin: false }] });
    const now = new Date('2026-12-04T12:00:00Z');
    const started = [];
    for (let i = 0; i < MAX_SESSIONS_PER_USER + 5; i++) {
      const { record } = await startSession('ada', 'password', tokens, DEFAULT_SESSION_POLICY, now);
      started.push(record.id);
      expect((await activeSessions('ada', tokens, now)).map((t) => t.id)).toContain(record.id);
    }
    expect(await activeSessions('ada', tokens, now)).toHaveLength(MAX_SESSIONS_PER_USER);
  });

  // The console shows owners' buttons (withdrawing an invitation) to owners only, relying on this.
  it('gives an administrator no administrator power: their session is refused a project they are not a member of', async () => {
    const tokens = new MemoryTokenStore({ users: [{ id: 'root', admin: true }], memberships: { shop: { ada: 'owner' } } });
    const now = new Date('2026-12-04T12:00:00Z');
    const { token } = await startSession('root', 'password', tokens, DEFAULT_SESSION_POLICY, now);
    const principal = await authenticate(`Bearer ${token}`, tokens, now);
    expect(principal.admin).toBe(false);
    await expect(authorize(principal, { scope: 'projects:write', projectId: 'shop' }, tokens)).rejects.toThrow('not a member');
  });
});
