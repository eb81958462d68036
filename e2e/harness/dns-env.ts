// DNS settings for the platform processes the tests start: project zones in the run's moto, and DNS lookups
// that give up fast (a resolver on the discard port), so a test that never meant to touch DNS is not slowed
// down and never reaches the internet. Tests of DNS itself override CW_DNS_PARENT_SERVER and friends.
import { inject } from 'vitest';

/** moto accepts any keys: fixed dummies, never real ones. */
export const ROUTE53_TEST_CREDENTIALS = { CW_ROUTE53_ACCESS_KEY_ID: 'AKIDCLOUDWRIGHTTEST', CW_ROUTE53_SECRET_ACCESS_KEY: 'cloudwright-test-secret-key' };

export function dnsTestEnv(endpoint: string = inject('route53Endpoint')): Record<string, string> {
  return {
    CW_ROUTE53_ENDPOINT: endpoint,
    ...ROUTE53_TEST_CREDENTIALS,
    CW_DNS_RESOLVER: '127.0.0.1:9',
    CW_DNS_TIMEOUT_MS: '300',
  };
}

/**
 * An operator's DNS settings for delegation the test controls: lookups go to the test's parent zone server (at
 * `parentAddress`), app hostnames point at the runtime's base domain, and pending domains are re-checked every second
 * (a minute by default), so delegating in the parent zone is noticed at once.
 */
export function delegatingDnsEnv(parentAddress: string, baseDomain: string): Record<string, string> {
  return {
    ...dnsTestEnv(),
    CW_DNS_PARENT_SERVER: parentAddress,
    CW_DNS_RESOLVER: parentAddress,
    CW_DNS_TIMEOUT_MS: '2000',
    CW_RUNTIME_BASE_DOMAIN: baseDomain,
    CW_DNS_PENDING_RECHECK_SECONDS: '1',
  };
}
