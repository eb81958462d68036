import type { IncomingMessage, ServerResponse } from 'node:http';
import type { TlsCertificate } from '../../src/apis/v1alpha1/tls-certificate.ts';
import { hostOf } from '../engine/entry-proxy.ts';
import type { MayServe, PrepareName } from './certificate-index.ts';
import { sharedIndex, type IndexedSource } from '../../src/kube/informer-index.ts';

const PREFIX = '/.well-known/acme-challenge/';

/**
 * The ACME HTTP-01 answers (RFC 8555 §8.3): `GET /.well-known/acme-challenge/<token>` on a host being validated
 * answers the key authorization the operator wrote into the TlsCertificate's `status.http01`, before the request
 * is routed to an app (a host with no app yet is validated too). Only for a host the certificate's namespace may
 * serve by the host admission rule (for a custom host name: its claim and an active AppHostname of that
 * namespace), so a tenant's status cannot answer for another project's name. Any other request, including an
 * unknown token, goes on to the app.
 */
export function http01Answerer(options: {
  certificates: IndexedSource<TlsCertificate> & { list(): readonly TlsCertificate[] };
  mayServe: MayServe;
  /** A host the caches cannot decide yet is read first (a replica taking traffic before its lists: `NamesOnDemand`). */
  prepareName?: PrepareName;
}): (req: IncomingMessage, res: ServerResponse) => boolean | Promise<boolean> {
  const answerWith = (req: IncomingMessage, res: ServerResponse, answer: string | undefined): boolean => {
    if (answer === undefined) return false;
    res.writeHead(200, { 'content-type': 'text/plain', 'content-length': Buffer.byteLength(answer), 'cache-control': 'no-store' });
    res.end(req.method === 'HEAD' ? undefined : answer);
    return true;
  };
  return (req, res) => {
    const path = req.url ?? '';
    if (!path.startsWith(PREFIX) || (req.method !== 'GET' && req.method !== 'HEAD')) return false;
    const token = path.slice(PREFIX.length);
    const host = (hostOf(req) ?? '').replace(/:\d+$/, '').toLowerCase().replace(/\.$/, '');
    // Only the certificates with a challenge of that token: a look-up, not a walk over every certificate (which any
    // client could make the entry thread do, twice a request, with made-up tokens; found in review).
    const withToken = sharedIndex(options.certificates, 'http01 tokens', challengeTokens).objects(token);
    const answer = (mayServe: MayServe) => keyAuthorization(withToken, host, token, mayServe);
    // Before the names are listed, a challenge some certificate has is decided on the name's claims as read now;
    // made-up tokens cost the apiserver nothing.
    const reading = options.prepareName && answer(() => true) !== undefined ? options.prepareName(host) : undefined;
    if (!reading) return answerWith(req, res, answer(options.mayServe));
    // A failed read leaves the request to its app, as a challenge this replica cannot answer.
    return reading.then(
      (mayServe) => answerWith(req, res, answer(mayServe)),
      () => false,
    );
  };
}

/** The tokens of a certificate's pending HTTP-01 challenges. */
function challengeTokens(cert: TlsCertificate): string[] {
  return cert.status?.http01?.map((c) => c.token) ?? [];
}

/** The key authorization for `token` on `host`, from a TlsCertificate whose namespace may serve `host`. */
export function keyAuthorization(certificates: readonly TlsCertificate[], host: string, token: string, mayServe: MayServe): string | undefined {
  if (!token) return undefined;
  for (const cert of certificates) {
    const challenge = cert.status?.http01?.find((c) => c.token === token && c.dnsName.toLowerCase() === host);
    if (challenge && cert.metadata?.namespace && mayServe(cert.metadata.namespace, host)) return challenge.keyAuthorization;
  }
  return undefined;
}
