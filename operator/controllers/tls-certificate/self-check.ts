import { request } from 'undici';
import type { Http01Challenge } from '../../../src/apis/v1alpha1/tls-certificate.ts';

/** A self-check answer is small; anything larger is not the key authorization. */
const MAX_BODY = 1024;

/**
 * Whether cw-runtime answers an HTTP-01 challenge yet, asked at its entry point with the name as `Host`
 * (cert-manager's self-check, without DNS: the CA's own lookup is what proves the name points here).
 */
export function http01SelfCheck(entryUrl: string): (challenge: Http01Challenge) => Promise<boolean> {
  const base = entryUrl.replace(/\/+$/, '');
  return async (challenge) => {
    try {
      const response = await request(`${base}/.well-known/acme-challenge/${challenge.token}`, { headers: { host: challenge.dnsName }, signal: AbortSignal.timeout(5000) });
      const body = Buffer.from(await response.body.arrayBuffer())
        .subarray(0, MAX_BODY)
        .toString('utf8')
        .trim();
      return response.statusCode === 200 && body === challenge.keyAuthorization;
    } catch {
      return false;
    }
  };
}
