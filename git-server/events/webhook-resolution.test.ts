import { describe, expect, it } from 'vitest';
import type { RepositoryWebhook, RepositoryWebhookSpec } from '../../src/apis/v1alpha1/repository-webhook.ts';
import { parseRepoPath } from '../../src/repo-store/repo-path.ts';
import { resolveWebhook } from './webhook-resolution.ts';

const STANDARD = `whsec_${Buffer.alloc(32, 7).toString('base64')}`;
const b64 = (text: string) => Buffer.from(text).toString('base64');
const hook = (spec: Partial<RepositoryWebhookSpec> = {}): RepositoryWebhook => ({
  metadata: { namespace: 'cw', name: 'site-hook', uid: 'u-1', creationTimestamp: '2030-01-02T03:04:05Z' },
  spec: { repository: 'acme/site', url: 'https://hooks.example.com/x', secretRef: { name: 'keys', key: 'k' }, ...spec },
});

describe('resolveWebhook', () => {
  it('makes a target from the resource and its Secret: start time, cursor under the uid, scheme, filter, secret hidden', () => {
    const got = resolveWebhook(hook({ signature: 'standard-webhooks', events: { refs: ['refs/tags/*'] } }), { data: { k: b64(STANDARD) } });
    if (got.kind !== 'ready') throw new Error(got.message);
    const { target } = got;
    expect([target.id, target.url, target.scheme, target.since?.toISOString(), target.secret]).toEqual([
      'hook:cw/site-hook',
      'https://hooks.example.com/x',
      'standard-webhooks',
      '2030-01-02T03:04:05.000Z',
      STANDARD,
    ]);
    expect(target.cursorKey(parseRepoPath('acme/site'))).toBe('repos/acme/site/events/webhooks/u-1/cursor.json');
    expect(JSON.stringify(target)).not.toContain(STANDARD);
    expect(target.filter?.({ action: 'create', ref_name: 'refs/heads/main' } as never)).toBe(false);
  });

  it.each<[string, RepositoryWebhook, { data?: Record<string, string> } | undefined, string, RegExp]>([
    ['paused', hook({ active: false }), { data: { k: b64('s') } }, 'Inactive', /spec.active is false/],
    ['without its Secret', hook(), undefined, 'SecretNotFound', /Secret keys is not found .*cloudwright.dev\/webhook-secret/],
    ['without the key', hook(), { data: { other: b64('s') } }, 'SecretNotFound', /Secret keys has no key k/],
    ['with an empty key', hook(), { data: { k: '' } }, 'InvalidSecret', /is empty/],
    [
      'with a plain secret for standard-webhooks',
      hook({ signature: 'standard-webhooks' }),
      { data: { k: b64('plain secret') } },
      'InvalidSecret',
      /cannot sign standard-webhooks posts: it is not whsec_/,
    ],
  ])('holds a webhook %s', (_name, resource, secret, reason, message) => {
    const got = resolveWebhook(resource, secret);
    expect(got).toMatchObject({ kind: 'not-ready', reason });
    if (got.kind === 'not-ready') {
      expect(got.message).toMatch(message);
      expect(got.message).not.toContain('plain secret');
    }
  });
});
