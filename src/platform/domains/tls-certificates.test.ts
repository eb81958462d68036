import { describe, expect, it } from 'vitest';
import type { TlsCertificate } from '../../apis/v1alpha1/tls-certificate.ts';
import type { Informer, OwnerReference } from '../../kube/index.ts';
import { TLS_CERTIFICATES } from '../resources.ts';
import { TlsCertificates } from './tls-certificates.ts';

/** A cache whose contents the test replaces; `changes` moves with each replacement, as the informer's does. */
function cacheOf(initial: TlsCertificate[]): Informer<TlsCertificate> & { set(objects: TlsCertificate[]): void } {
  let objects = initial;
  let changes = 0;
  return {
    resource: TLS_CERTIFICATES,
    onChange: () => () => {},
    onQuietChange: () => () => {},
    get: () => undefined,
    list: () => objects,
    changes: () => changes,
    hasSynced: () => true,
    waitForSync: async () => {},
    start: () => {},
    stop: () => {},
    set(next) {
      objects = next;
      changes += 1;
    },
  };
}

const ref = (kind: string, uid: string, name = 'www.shop.test'): OwnerReference => ({ apiVersion: 'cloudwright.dev/v1alpha1', kind, name, uid });
const cert = (name: string, namespace: string, owners: OwnerReference[], extra: Partial<TlsCertificate> = {}): TlsCertificate => ({
  metadata: { name, namespace, ownerReferences: owners, creationTimestamp: '2026-11-29T10:00:00Z' },
  spec: { dnsNames: ['www.shop.test'] },
  ...extra,
});
const hostname = { metadata: { name: 'www.shop.test', namespace: 'acme', uid: 'h-1' } };

describe('TlsCertificates', () => {
  it('finds the certificate owned by the object, by kind and uid, in its namespace only', () => {
    const mine = cert('mine', 'acme', [ref('AppHostname', 'h-1')]);
    const cache = cacheOf([
      // Another project's certificate naming an owner of the same name, and one naming the very uid: never ours.
      cert('theirs', 'rival', [ref('AppHostname', 'h-2')]),
      cert('forged', 'rival', [ref('AppHostname', 'h-1')]),
      // Another kind of owner with that uid, and a look-alike group.
      cert('domain', 'acme', [ref('ProjectDomain', 'h-1')]),
      cert('foreign', 'acme', [{ ...ref('AppHostname', 'h-1'), apiVersion: 'example.com/v1' }]),
    ]);
    const certs = new TlsCertificates(cache);
    expect(certs.of('AppHostname', hostname)).toBeUndefined();
    expect(certs.of('ProjectDomain', hostname)?.metadata?.name).toBe('domain');
    cache.set([...cache.list(), mine]);
    expect(certs.of('AppHostname', hostname)).toBe(mine);
    expect(certs.of('AppHostname', { metadata: { ...hostname.metadata, namespace: 'rival', uid: 'h-2' } })?.metadata?.name).toBe('theirs');
    expect(certs.of('AppHostname', { metadata: { name: 'www.shop.test', namespace: 'acme' } })).toBeUndefined();
  });

  it('of several, answers the one served, else the newest; one being deleted is not answered', () => {
    const old = cert('old', 'acme', [ref('AppHostname', 'h-1')], { status: { state: 'Issued' } });
    const replacement = cert('new', 'acme', [ref('AppHostname', 'h-1')], { metadata: { ...old.metadata, name: 'new', creationTimestamp: '2026-11-29T11:00:00Z' } });
    const cache = cacheOf([old, replacement]);
    const certs = new TlsCertificates(cache);
    expect(certs.of('AppHostname', hostname)?.metadata?.name).toBe('old');
    cache.set([{ ...old, status: { state: 'Failed' } }, replacement]);
    expect(certs.of('AppHostname', hostname)?.metadata?.name).toBe('new');
    cache.set([old, { ...replacement, metadata: { ...replacement.metadata, deletionTimestamp: '2026-11-29T12:00:00Z' } }]);
    expect(certs.of('AppHostname', hostname)?.metadata?.name).toBe('old');
  });
});
