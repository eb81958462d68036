import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { TlsCertificate } from '../../../src/apis/v1alpha1/tls-certificate.ts';
import { silentLogger } from '../../../src/logging/log.ts';
import { MemoryObjectStore } from '../../../src/object-store/memory-object-store.ts';
import { certificateObjectKey } from '../../../src/tls/certificate-objects.ts';
import { SealedStore } from '../../../src/tls/sealed-store.ts';
import { TestCa } from '../../../runtime-server/tls/testing/test-ca.ts';
import type { AcmeClient } from '../../acme/client.ts';
import { AcmeProblem } from '../../acme/problem.ts';
import { retireCertificate } from './retirement.ts';

/** A deleted TlsCertificate's stored certificate, still valid, and what retiring it leaves when revoking answers `revoke`. */
async function retire(revoke: () => Promise<void>): Promise<{ left: string[]; error?: unknown }> {
  const sealed = new SealedStore(new MemoryObjectStore(), randomBytes(32));
  const stored = await (await TestCa.create()).issue(['www.shop.test']);
  await sealed.put(certificateObjectKey('shop', 'www', stored.serial), stored);
  const cert = { metadata: { namespace: 'shop', name: 'www' }, status: { serial: stored.serial, notAfter: stored.notAfter } } as TlsCertificate;
  const acme = async () => ({ revoke }) as unknown as AcmeClient;
  const error = await retireCertificate(cert, { acme, sealed, log: silentLogger }).then(
    () => undefined,
    (err: unknown) => err,
  );
  return { left: await sealed.keys(''), ...(error ? { error } : {}) };
}

const problem = (status: number, kind: string, detail: string) => new AcmeProblem(status, { type: `urn:ietf:params:acme:error:${kind}`, detail });

describe('retireCertificate', () => {
  it('deletes the key and chain once the certificate is revoked, or was already', async () => {
    expect(await retire(async () => {})).toEqual({ left: [] });
    expect(await retire(() => Promise.reject(problem(400, 'alreadyRevoked', 'Certificate already revoked')))).toEqual({ left: [] });
  });

  it('deletes them too when the CA will never revoke it (another CA or account since): the deletion is not held for good (found in review)', async () => {
    expect(await retire(() => Promise.reject(problem(404, 'malformed', 'Unable to find specified certificate')))).toEqual({ left: [] });
    expect(await retire(() => Promise.reject(problem(403, 'unauthorized', 'The account is not authorized to revoke this certificate')))).toEqual({ left: [] });
  });

  it('keeps them, to try again, when the CA or the way to it fails for now', async () => {
    for (const failure of [problem(500, 'serverInternal', 'try later'), problem(429, 'rateLimited', 'slow down'), new Error('connect ECONNREFUSED')]) {
      const { left, error } = await retire(() => Promise.reject(failure));
      expect([left.length, error]).toEqual([1, failure]);
    }
  });
});
