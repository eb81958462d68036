import type { TlsCertificate } from '../../apis/v1alpha1/tls-certificate.ts';
import { GROUP } from '../../apis/v1alpha1/group-version.ts';
import type { Informer, KubeObject } from '../../kube/index.ts';

/** The kinds the certificate controller owns TlsCertificates for. */
export type CertificateOwnerKind = 'AppHostname' | 'ProjectDomain';

const served = (c: TlsCertificate): boolean => c.status?.state === 'Issued' || c.status?.state === 'Renewing';

/**
 * Finds the TlsCertificate of an AppHostname or a ProjectDomain in the informer cache, by its owner
 * reference (kind and uid) in the owner's namespace: an object of another namespace naming an owner of the
 * same name, or even the same uid, is never taken. The index is rebuilt only when the cache has changed, so a
 * list of host names costs one map lookup each.
 */
export class TlsCertificates {
  readonly #cache: Informer<TlsCertificate>;
  #byOwner = new Map<string, TlsCertificate[]>();
  #seen = -1;

  constructor(cache: Informer<TlsCertificate>) {
    this.#cache = cache;
  }

  /**
   * The certificate `owner` has: of several (one being replaced), the one served, else the newest; objects
   * being deleted are left out.
   */
  of(kind: CertificateOwnerKind, owner: KubeObject): TlsCertificate | undefined {
    const { namespace, uid } = owner.metadata ?? {};
    if (!namespace || !uid) return undefined;
    const found = this.#index().get(key(namespace, kind, uid));
    if (!found || found.length < 2) return found?.[0];
    return [...found].sort((a, b) => Number(served(b)) - Number(served(a)) || (b.metadata?.creationTimestamp ?? '').localeCompare(a.metadata?.creationTimestamp ?? ''))[0];
  }

  #index(): Map<string, TlsCertificate[]> {
    const changes = this.#cache.changes();
    if (changes === this.#seen) return this.#byOwner;
    const index = new Map<string, TlsCertificate[]>();
    for (const cert of this.#cache.list()) {
      const { namespace, deletionTimestamp, ownerReferences = [] } = cert.metadata ?? {};
      if (!namespace || deletionTimestamp) continue;
      for (const ref of ownerReferences) {
        if (ref.apiVersion.split('/')[0] !== GROUP || (ref.kind !== 'AppHostname' && ref.kind !== 'ProjectDomain')) continue;
        const k = key(namespace, ref.kind, ref.uid);
        index.set(k, [...(index.get(k) ?? []), cert]);
      }
    }
    this.#byOwner = index;
    this.#seen = changes;
    return index;
  }
}

const key = (namespace: string, kind: string, uid: string) => `${namespace}/${kind}/${uid}`;
