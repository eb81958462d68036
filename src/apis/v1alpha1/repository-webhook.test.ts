import Value from 'typebox/value';
import { describe, expect, it } from 'vitest';
import { RepositoryWebhookSpec } from './repository-webhook.ts';

// The spec's field rules as TypeBox checks them; the CRD (same schema) is exercised against the real apiserver by
// git-server/events/repository-webhooks.int.test.ts.

const base = { repository: 'acme/site', url: 'https://hooks.example.com/cw?x=1', secretRef: { name: 'site-hook', key: 'secret' } };

describe('RepositoryWebhookSpec', () => {
  it.each<[string, unknown, boolean]>([
    ['a minimal webhook', base, true],
    ['every field', { ...base, events: { actions: ['create', 'delete'], refs: ['refs/heads/**', 'refs/tags/v*'] }, signature: 'standard-webhooks', active: false }, true],
    ['an http URL on a port', { ...base, url: 'http://10.0.0.7:8080' }, true],
    ['a URL with credentials', { ...base, url: 'https://user:pass@hooks.example.com/' }, false],
    ['a URL of another scheme', { ...base, url: 'ftp://hooks.example.com/' }, false],
    ['a relative URL', { ...base, url: '/hooks' }, false],
    ['a repository without owner', { ...base, repository: 'site' }, false],
    ['a repository with three segments', { ...base, repository: 'a/b/c' }, false],
    ['a repository segment ..', { ...base, repository: 'acme/..' }, false],
    ['an unknown action', { ...base, events: { actions: ['push'] } }, false],
    ['an action twice', { ...base, events: { actions: ['create', 'create'] } }, false],
    ['a ref pattern not under refs/', { ...base, events: { refs: ['main'] } }, false],
    ['an unknown signature scheme', { ...base, signature: 'github' }, false],
    ['a secret key with a slash', { ...base, secretRef: { name: 'x', key: 'a/b' } }, false],
  ])('%s', (_name, value, valid) => {
    expect(Value.Check(RepositoryWebhookSpec, value)).toBe(valid);
  });
});
