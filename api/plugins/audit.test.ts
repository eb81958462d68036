import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import { MemoryTokenStore } from '../../src/auth/memory-token-store.ts';
import { AUDITED_ROUTES, UNAUDITED_ROUTES } from '../audit/audit-actions.ts';
import { audit } from './audit.ts';

describe('the audit plugin', () => {
  it('refuses a changing route that is in neither table, and lets reads and listed routes through', async () => {
    const app = Fastify();
    audit(app, { tokens: new MemoryTokenStore(), now: () => new Date() });
    app.get('/v1/anything', async () => ({}));
    app.post('/v1/projects/:projectId/apps', async () => ({}));
    app.post('/v1/tokens', async () => ({}));
    expect(() => app.post('/v1/projects/:projectId/widgets', async () => ({}))).toThrow(/POST \/v1\/projects\/:projectId\/widgets changes something but is in neither/);
    await app.close();
  });

  it('lists no route in both tables', () => {
    expect(Object.keys(AUDITED_ROUTES).filter((route) => route in UNAUDITED_ROUTES)).toEqual([]);
  });
});
